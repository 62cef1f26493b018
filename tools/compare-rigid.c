/* `cradle compare --rigid-limit` (compare-rigid.h; docs/compare.md, "The rigid
 * limit"). */
#include "compare-rigid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools-common.h"

int compare_rigid_parse(const char *arg, cr_rigid_limit_options *o)
{
    cr_rigid_limit_options r = cr_rigid_limit_defaults();
    if (arg) {
        char *end;
        long n = strtol(arg, &end, 10);
        if (end == arg || n < 3 || n > CR_RIGID_LIMIT_MAX_LEVELS)
            return -1;
        r.levels = (size_t)n;
        if (*end == ',') {
            const char *s = end + 1;
            r.ratio = strtod(s, &end);
            if (end == s || !(r.ratio > 1.0) || !isfinite(r.ratio))
                return -1;
        }
        if (*end)
            return -1;
    }
    *o = r;
    return 0;
}

static void contact_label(const cr_contact_record *r, char *buf, size_t len)
{
    if (r->body_b >= 0)
        snprintf(buf, len, "a(%zu-%ld)", r->body_a, r->body_b);
    else
        snprintf(buf, len, "a(%zu-w%zu)", r->body_a, (size_t)CR_WALL_INDEX(r->body_b));
}

static void print_levels(FILE *out, const cr_episode_data *ep, const cr_rigid_limit *r)
{
    char lab[64];
    fprintf(out, "  %9s %8s %12s %10s", "K/K0", "h", "duration s", "residual");
    for (size_t c = 0; c < r->contacts; c++) {
        contact_label(&ep->records[c], lab, sizeof lab);
        fprintf(out, " %14s", lab);
    }
    fputc('\n', out);
    for (size_t L = 0; L < r->levels; L++) {
        fprintf(out, "  %9g %8.5f %12.5e %10.3e", r->factor[L], r->h[L], r->duration[L],
                r->residual[L]);
        for (size_t c = 0; c < r->contacts; c++)
            fprintf(out, " %14.10f", r->alpha[L * r->contacts + c]);
        fputc('\n', out);
    }
    fprintf(out, "  %9s %8.5f %12s %10s", "K -> inf", 0.0, "", "");
    for (size_t c = 0; c < r->contacts; c++)
        fprintf(out, " %14.10f", r->alpha_limit[c]);
    fputc('\n', out);
}

int compare_rigid_report(FILE *out, const char *what, const cr_model *model, size_t k,
                         const cr_episode_data *ep, const cr_rigid_limit_options *o)
{
    char msg[1024] = "";
    cr_rigid_limit r;
    int rc = cr_compare_rigid_limit(model, ep, o, &r, msg, sizeof msg);
    if (rc != CR_OK) {
        tools_error("%s: episode %zu: rigid limit: %s", what, k, msg);
        return rc == CR_ERR_INVALID ? EXIT_INPUT : EXIT_RUN;
    }
    double p = -1.0 / (r.n + 1.0);
    fprintf(out,
            "rigid limit of episode %zu: %zu levels K x %g^k, C x (K/K0)^((m+1)/(n+1)) (same "
            "restitution), n = %g, h = (K/K0)^(%.4g)\n",
            k, r.levels, r.levels > 1 ? r.factor[1] : 0.0, r.n, p);
    print_levels(out, ep, &r);
    fprintf(out, "  u+ (K -> inf):");
    for (size_t q = 0; q < r.dofs; q++)
        fprintf(out, " %.10f", r.velocity_limit[q]);
    fprintf(out, " m/s\n  accuracy (last Richardson column): alpha %.1e, u+ %.1e m/s\n",
            r.alpha_accuracy, r.velocity_accuracy);
    /* NaN: the levels agree to the integration's noise (nothing to fit) */
    fprintf(out, "  observed order in h: alpha %.3f, u+ %.3f; duration ~ K^%.5f, residual ~ K^%.5f",
            r.alpha_order, r.velocity_order, r.duration_exponent, r.residual_exponent);
    fprintf(out, " (turning normals: 1, 1, %.4g, %.4g; nan: levels agree to %.0e)\n", p, p,
            CR_RIGID_LIMIT_NOISE);
    cr_rigid_limit_free(&r);
    return 0;
}
