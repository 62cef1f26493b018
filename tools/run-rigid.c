/* `cradle run --rigid LAW`: parsing and checking the rigid options, building
 * the rigid system (public API only). */
#include "run-rigid.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools-common.h"

void rigid_args_init(rigid_args *r)
{
    *r = (rigid_args){NULL, NULL, CR_LAW_NEWTON, NAN, NAN};
}

/* A whole number argument of @p opt; @return 0, or EXIT_USAGE with the message. */
static int number_arg(const char *opt, const char *text, double *out)
{
    char *end;
    *out = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(*out)) {
        tools_error("%s: not a number: '%s'", opt, text);
        return EXIT_USAGE;
    }
    return 0;
}

int rigid_option(int c, const char *arg, rigid_args *r)
{
    switch (c) {
    case 'R':
        r->rigid = arg;
        return 0;
    case 'E':
        return number_arg("--restitution", arg, &r->restitution);
    case 'K':
        return number_arg("--kappa", arg, &r->kappa);
    case 'A':
        r->alpha = arg;
        return 0;
    default:
        return -1;
    }
}

/* --rigid and its parameters: the law exists and gets what it needs, no more. */
int rigid_check(rigid_args *a)
{
    int has_e = !isnan(a->restitution), has_k = !isnan(a->kappa) || a->alpha;
    if (!a->rigid) {
        if (has_e || has_k)
            tools_error("%s needs --rigid LAW", has_e ? "--restitution" : "--kappa/--alpha");
        return has_e || has_k ? EXIT_USAGE : 0;
    }
    if (strcmp(a->rigid, "calibrated") == 0) {
        tools_error("--rigid calibrated: the laws' parameters measured on the compliant run, "
                    "episode by episode, are the comparator's job (cradle compare), not built yet");
        return EXIT_USAGE;
    }
    if (strcmp(a->rigid, "lzb") == 0 && cr_law_from_name(a->rigid, &a->law) != CR_OK) {
        tools_error("--rigid lzb: the LZB law is not in the law core yet (cradle law --list)");
        return EXIT_USAGE;
    }
    if (cr_law_from_name(a->rigid, &a->law) != CR_OK) {
        const char *s = cr_law_suggest(a->rigid);
        tools_error("--rigid: unknown law '%s'%s%s%s (cradle law --list)", a->rigid,
                    s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
        return EXIT_USAGE;
    }
    int energetic = a->law == CR_LAW_ENERGETIC;
    if (has_e && (energetic || a->law == CR_LAW_MAX_DISSIPATION)) {
        tools_error("--restitution: law %s has no restitution", a->rigid);
        return EXIT_USAGE;
    }
    if (has_e && !(a->restitution >= 0.0 && a->restitution <= 1.0)) {
        tools_error("--restitution: must lie in [0, 1] (got %g)", a->restitution);
        return EXIT_USAGE;
    }
    if (has_k && !energetic) {
        tools_error("--kappa/--alpha: only the energetic law takes them (not %s)", a->rigid);
        return EXIT_USAGE;
    }
    if (energetic && (isnan(a->kappa) || !a->alpha)) {
        tools_error("--rigid energetic needs --kappa K and --alpha A[,A...] (Acary & Taha 2005 "
                    "eq. 17-18; from a reference table later)");
        return EXIT_USAGE;
    }
    return 0;
}

/* --alpha: one weight for every pair, or one per pair of the model; into a new
 * array of @p nc values. @return 0 or EXIT_INPUT / EXIT_USAGE with the message. */
static int alpha_weights(const rigid_args *a, const char *model_path, size_t nc, double **out)
{
    size_t n = 1;
    for (const char *p = a->alpha; *p; p++)
        n += *p == ',';
    double *w = calloc(nc > n ? nc : n, sizeof(double));
    char *copy = strdup(a->alpha), *save = NULL;
    if (!w || !copy) {
        free(w);
        free(copy);
        tools_error("out of memory");
        return EXIT_RUN;
    }
    size_t k = 0;
    int st = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && st == 0; tok = strtok_r(NULL, ",", &save))
        st = number_arg("--alpha", tok, &w[k++]);
    if (st == 0 && k != n)
        tools_error("--alpha: an empty value in '%s'", a->alpha), st = EXIT_USAGE;
    if (st == 0 && n != 1 && n != nc)
        tools_error("--alpha: %zu values for the %zu pairs of %s (give one, or one per pair)", n,
                    nc, model_path),
            st = EXIT_INPUT;
    for (size_t c = 1; st == 0 && n == 1 && c < nc; c++)
        w[c] = w[0];
    free(copy);
    if (st != 0)
        free(w);
    *out = st == 0 ? w : NULL;
    return st;
}

/* The system: compliant, or rigid under the law asked for. */
cr_system *rigid_or_compliant_system(const rigid_args *a, const char *model_path,
                                     const cr_model *model, int *st)
{
    char msg[1024];
    cr_system *sys = NULL;
    double *alpha = NULL;
    *st = EXIT_INPUT;
    if (!a->rigid) {
        sys = cr_system_create(model, msg, sizeof msg);
    } else {
        cr_law_params lp;
        cr_law_params_init(&lp);
        lp.restitution = a->restitution; /* NaN: each pair's own */
        lp.kappa = a->kappa;
        if (a->alpha &&
            (*st = alpha_weights(a, model_path, cr_model_contact_count(model), &alpha)) != 0)
            return NULL;
        lp.alpha = alpha;
        sys = cr_system_create_rigid(model, a->law, &lp, msg, sizeof msg);
        *st = EXIT_INPUT;
    }
    if (!sys)
        tools_error("%s: %s", model_path, msg);
    free(alpha);
    return sys;
}
