/* cradle pack MODEL -o PACKED.yaml [--lammps PACKED.data]: a packing by a
 * stated procedure (docs/model-format.md, "Packings"): the model's spheres
 * (a lattice, jittered or randomly inserted, in a box of walls) deposited
 * under its gravity by the compliant engine until the kinetic energy falls
 * below a threshold, then relaxed to a touching network (pack-relax.c), and
 * written as a model file with explicit bodies and a LAMMPS data file. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cradle/cradle.h"
#include "model-input.h"
#include "pack-relax.h"
#include "tools-common.h"

void usage_pack(FILE *out)
{
    fputs("usage: cradle pack MODEL -o PACKED.yaml [--lammps PACKED.data] [--ke F]\n"
          "                   [--t-max T] [--check DT] [--striker FACE,SPEED,GAP]\n"
          "                   [--no-deposit]\n"
          "                   [--set PATH=VALUE ...] [-q]\n"
          "\n"
          "Makes a packing by a stated procedure: the spheres of MODEL (dim 3, with\n"
          "gravity and walls; a `lattice` generator, jittered or random, in a `box`)\n"
          "fall under gravity, integrated by the compliant engine with the model's\n"
          "damped contact law, until the kinetic energy is below F times\n"
          "sum(m |g| r) (checked every DT); the settled contact network is then\n"
          "relaxed so that every contact touches within the geometric tolerance\n"
          "1e-9 min(r_i, r_j) and nothing overlaps beyond it. Writes PACKED.yaml, a\n"
          "model file with explicit bodies at rest (MODEL's other fields kept), and\n"
          "with --lammps a LAMMPS data file (read_data, atom_style sphere).\n"
          "\n"
          "  -o, --output FILE    the packed model file (required)\n"
          "  --lammps FILE        also a LAMMPS data file: id type diameter density x y z\n"
          "  --ke F               settled when kinetic energy < F sum(m |g| r) (1e-6)\n"
          "  --t-max T            give up at T s of deposition (default integration.t_end)\n"
          "  --check DT           check the energy every DT s (default sqrt(r/|g|)/4)\n"
          "  --no-deposit         no deposition and no relaxation: MODEL's bodies as\n"
          "                       given (a generated block, say), written explicit with\n"
          "                       their velocities (LAMMPS: a Velocities section too);\n"
          "                       gravity not needed\n"
          "  --striker FACE,SPEED,GAP  add a sphere (the first one's size) aimed at the\n"
          "                       packing's FACE (x-, x+, y-, y+, z-, z+: the side it\n"
          "                       comes from) through its centre, GAP from its extent,\n"
          "                       moving in at SPEED; the last body of PACKED.yaml\n"
          "  -s, --set PATH=VALUE change a field of MODEL first\n"
          "  -q, --quiet          print nothing but errors\n"
          "\n"
          "Exit status: 0 written; 3 bad input (a model that is not dim 3, has no\n"
          "gravity, or whose spheres do not fit: one line naming file, line and\n"
          "field; no file written); 4 the deposition did not settle by T or the\n"
          "relaxation left overlaps (no file written).\n",
          out);
}

typedef struct {
    const char *input, *out, *lammps;
    double ke, t_max, check;
    int quiet;
    int as_given;                /* --no-deposit: MODEL's bodies as they are */
    int striker, s_axis, s_sign; /* --striker FACE,SPEED,GAP */
    double s_speed, s_gap;
    model_sets sets;
} pack_args;

/* --striker FACE,SPEED,GAP: FACE x-, x+, y-, y+, z- or z+ (the side it comes
 * from), SPEED > 0, GAP >= 0. */
static int parse_striker(const char *arg, pack_args *a)
{
    char face[3] = "", tail;
    if (sscanf(arg, "%2[xyz+-],%lf,%lf%c", face, &a->s_speed, &a->s_gap, &tail) != 3 ||
        strlen(face) != 2 || face[0] < 'x' || face[0] > 'z' || (face[1] != '-' && face[1] != '+') ||
        !(a->s_speed > 0.0) || !isfinite(a->s_speed) || !(a->s_gap >= 0.0) || !isfinite(a->s_gap)) {
        tools_error("pack: --striker FACE,SPEED,GAP: FACE x-, x+, y-, y+, z- or z+, SPEED > 0, "
                    "GAP >= 0 (got '%s')",
                    arg);
        return EXIT_USAGE;
    }
    a->striker = 1;
    a->s_axis = face[0] - 'x';
    a->s_sign = face[1] == '-' ? -1 : 1;
    return 0;
}

static int pack_parse(int argc, char **argv, pack_args *a)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"lammps", required_argument, NULL, 'L'},
                                         {"ke", required_argument, NULL, 'k'},
                                         {"t-max", required_argument, NULL, 't'},
                                         {"check", required_argument, NULL, 'c'},
                                         {"striker", required_argument, NULL, 'S'},
                                         {"set", required_argument, NULL, 's'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"help", no_argument, NULL, 'h'},
                                         {"no-deposit", no_argument, NULL, 'N'},
                                         {NULL, 0, NULL, 0}};
    int c;
    char *end;
    *a = (pack_args){.ke = 1e-6, .t_max = NAN, .check = NAN};
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:s:qh", opts, NULL)) != -1) {
        double *num = c == 'k' ? &a->ke : c == 't' ? &a->t_max : c == 'c' ? &a->check : NULL;
        if (num) {
            *num = strtod(optarg, &end);
            if (end == optarg || *end || !(*num > 0.0) || !isfinite(*num)) {
                tools_error("pack: --%s needs a positive number (got '%s')",
                            c == 'k'   ? "ke"
                            : c == 't' ? "t-max"
                                       : "check",
                            optarg);
                return EXIT_USAGE;
            }
        } else if (c == 'o' && a->out) {
            tools_error("pack: -o given twice ('%s', '%s')", a->out, optarg);
            return EXIT_USAGE;
        } else if (c == 'o')
            a->out = optarg;
        else if (c == 'L')
            a->lammps = optarg;
        else if (c == 'q')
            a->quiet = 1;
        else if (c == 'N')
            a->as_given = 1;
        else if (c == 'S') {
            int rc = parse_striker(optarg, a);
            if (rc)
                return rc;
        } else if (c == 's') {
            int rc = model_sets_add(&a->sets, optarg);
            if (rc)
                return rc;
        } else if (c == 'h') {
            usage_pack(stdout);
            return -1;
        } else
            return tools_bad_option("pack", argv);
    }
    if (optind != argc - 1 || !a->out) {
        tools_error("pack: give one MODEL and -o PACKED.yaml (try 'cradle help pack')");
        return EXIT_USAGE;
    }
    a->input = argv[optind];
    return 0;
}

/* The deposition's stop rule: kinetic energy below the threshold at an
 * output time (every --check seconds). */
typedef struct {
    double threshold, ke;
    int settled;
} settle_watch;

static int watch_energy(const cr_system *sys, void *user)
{
    settle_watch *w = user;
    w->ke = cr_system_kinetic_energy(sys);
    if (cr_system_get_time(sys) > 0.0 && w->ke < w->threshold) {
        w->settled = 1;
        return CR_ERR_INTERRUPTED;
    }
    return CR_OK;
}

/* Refuses what the procedure cannot pack: not dim 3, no gravity. */
static int pack_check_model(const pack_args *a, const cr_model *m, double *g)
{
    cr_model_get_gravity_vector(m, g);
    if (cr_model_dimension(m) != 3) {
        tools_error("%s: dim: packing takes a dim-3 model (got dim %d)", model_input_name(a->input),
                    cr_model_dimension(m));
        return EXIT_INPUT;
    }
    if (!a->as_given && !(hypot(hypot(g[0], g[1]), g[2]) > 0.0)) {
        tools_error("%s: fields.gravity: deposition needs gravity (none given)",
                    model_input_name(a->input));
        return EXIT_INPUT;
    }
    return 0;
}

/* Runs the deposition; x gets the settled positions. */
static int deposit(const pack_args *a, cr_model *m, const double *g, double *x, double *t_end,
                   settle_watch *w)
{
    size_t n = cr_model_body_count(m);
    double gn = hypot(hypot(g[0], g[1]), g[2]), eref = 0.0, rsum = 0.0, msg_t;
    for (size_t i = 0; i < n; i++) {
        if (!cr_model_is_fixed(m, i)) /* a fixed sphere has infinite mass */
            eref += cr_model_mass(m, i) * gn * cr_model_radius(m, i);
        rsum += cr_model_radius(m, i);
    }
    cr_settings s = *cr_model_settings(m);
    s.t_end = isnan(a->t_max) ? s.t_end : a->t_max;
    s.output_interval = isnan(a->check) ? 0.25 * sqrt(rsum / (double)n / gn) : a->check;
    s.output_every = 0;
    msg_t = s.t_end;
    cr_model_set_settings(m, &s);
    *w = (settle_watch){.threshold = a->ke * eref, .ke = NAN};
    char msg[512];
    cr_system *sys = cr_system_create(m, msg, sizeof msg);
    if (!sys) {
        tools_model_error(model_input_name(a->input), msg);
        return EXIT_INPUT;
    }
    cr_system_add_output_listener(sys, watch_energy, w);
    int rc = cr_system_run(sys, s.t_end);
    int st = 0;
    if (!w->settled && rc == CR_OK) {
        tools_error("pack: the deposition did not settle by t = %g s (kinetic energy %g J, "
                    "threshold %g J): give a longer --t-max or more damping",
                    msg_t, w->ke, w->threshold);
        st = EXIT_RUN;
    } else if (!w->settled) {
        tools_error("pack: the deposition failed: %s", cr_system_last_error(sys));
        st = EXIT_RUN;
    }
    cr_system_get_positions(sys, x);
    *t_end = cr_system_get_time(sys);
    cr_system_destroy(sys);
    return st;
}

/* The relaxation on the model's walls and gravity. */
static int relax(const cr_model *m, const double *g, double *x, pack_stats *st)
{
    size_t n = cr_model_body_count(m), nw = cr_model_plane_count(m);
    double *r = malloc((n + 1) * sizeof *r), *wn = malloc((3 * nw + 1) * sizeof *wn);
    double *wo = malloc((nw + 1) * sizeof *wo);
    unsigned char *fixed = malloc(n + 1);
    int rc = -1;
    if (r && wn && wo && fixed) {
        for (size_t i = 0; i < n; i++) {
            r[i] = cr_model_radius(m, i);
            fixed[i] = (unsigned char)(cr_model_is_fixed(m, i) != 0);
        }
        for (size_t w = 0; w < nw; w++)
            cr_model_get_plane(m, w, wn + 3 * w, wo + w);
        pack_problem P = {n, nw, r, wn, wo, g, fixed};
        rc = pack_relax(&P, x, st);
    }
    free(fixed);
    free(r);
    free(wn);
    free(wo);
    if (rc < 0)
        tools_error("pack: out of memory");
    else if (rc > 0)
        tools_error("pack: the relaxation left an overlap of %g times the geometric tolerance "
                    "after %ld passes",
                    st->max_overlap, st->passes);
    return rc ? EXIT_RUN : 0;
}

/* LAMMPS read_data text, atom_style sphere (id type diameter density x y z);
 * the box is the spheres' extent widened by one largest radius each side. */
static char *lammps_text(const cr_model *m, const double *x, const double *v, const char *source)
{
    size_t n = cr_model_body_count(m), size = 0;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double rmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        double r = cr_model_radius(m, i);
        rmax = fmax(rmax, r);
        for (int d = 0; d < 3; d++) {
            lo[d] = fmin(lo[d], x[3 * i + (size_t)d] - r);
            hi[d] = fmax(hi[d], x[3 * i + (size_t)d] + r);
        }
    }
    char *buf = NULL;
    FILE *f = open_memstream(&buf, &size);
    if (!f)
        return NULL;
    fprintf(f,
            "LAMMPS data file written by cradle pack from %s (SI units; type 2: fixed)\n\n"
            "%zu atoms\n2 atom types\n\n",
            source, n);
    for (int d = 0; d < 3; d++)
        fprintf(f, "%.17g %.17g %clo %chi\n", lo[d] - rmax, hi[d] + rmax, 'x' + d, 'x' + d);
    fputs("\nAtoms # sphere\n\n", f);
    for (size_t i = 0; i < n; i++) {
        double r = cr_model_radius(m, i);
        int fixed = cr_model_is_fixed(m, i) != 0;
        double rho =
            fixed ? 1.0 : cr_model_mass(m, i) / (4.0 / 3.0 * 3.14159265358979323846 * r * r * r);
        fprintf(f, "%zu %d %.17g %.17g %.17g %.17g %.17g\n", i + 1, fixed ? 2 : 1, 2.0 * r, rho,
                x[3 * i], x[3 * i + 1], x[3 * i + 2]);
    }
    int moving = 0;
    for (size_t i = 0; v && i < 3 * n; i++)
        moving |= v[i] != 0.0;
    if (moving) { /* atom_style sphere: id vx vy vz wx wy wz */
        fputs("\nVelocities\n\n", f);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%zu %.17g %.17g %.17g 0 0 0\n", i + 1, v[3 * i], v[3 * i + 1],
                    v[3 * i + 2]);
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Writes @p text to a temporary beside @p path and renames it over: a
 * failed write leaves what was at @p path. */
static int write_whole(const char *path, const char *text)
{
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (!tmp)
        return -1;
    snprintf(tmp, len, "%s.tmp-%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    int bad = !f || fputs(text, f) == EOF;
    if (f)
        bad |= fclose(f) != 0;
    if (!bad)
        bad = rename(tmp, path) != 0;
    if (bad)
        unlink(tmp);
    free(tmp);
    return bad ? -1 : 0;
}

/* The packed model file's text: the procedure and its numbers in comments,
 * then the model with explicit bodies; checked to read back. @p n: the
 * packing's spheres (the striker, when added, follows them). */
static char *packed_text(const pack_args *a, const cr_model *m, const char *text, const double *x,
                         const double *v, const char *header)
{
    char msg[512], *out = NULL;
    if (cr_modelfile_explicit_bodies(text, strlen(text), model_input_name(a->input), m, x, v,
                                     header, &out, msg, sizeof msg) != CR_OK) {
        tools_error("pack: %s", msg);
        return NULL;
    }
    cr_model *back = NULL;
    if (cr_modelfile_parse(out, strlen(out), a->out, &back, msg, sizeof msg) != CR_OK) {
        tools_error("pack: the packed model does not read back: %s", msg);
        free(out);
        return NULL;
    }
    cr_model_destroy(back);
    return out;
}

/* The header of a deposited packing: the procedure and its numbers. */
static void deposited_header(char *header, size_t len, const pack_args *a, size_t n,
                             double t_settle, const settle_watch *w, const pack_stats *st)
{
    snprintf(header, len,
             "# written by cradle pack from %s: deposited under gravity by the compliant engine\n"
             "# until the kinetic energy %.3g J < %.3g sum(m |g| r) (at t = %.6g s), then relaxed\n"
             "# to a touching network (%s): %zu sphere pairs and %zu wall contacts touch within\n"
             "# 1e-9 min(r_i, r_j) (largest |gap| %.2g of it), %zu network contacts opened,\n"
             "# mean coordination %.3f; bodies at rest%s (docs/model-format.md, \"Packings\")\n",
             model_input_name(a->input), w->ke, a->ke, t_settle,
             st->bilateral ? "every settled contact kept" : "by geometric settling", st->pairs,
             st->wall_contacts, st->max_gap, st->opened,
             n ? 2.0 * (double)st->pairs / (double)n : 0.0,
             a->striker ? " but the striker (the last body, --striker)" : "");
}

/* Where --striker puts its sphere: as the lattice generator's striker, on
 * the face's normal through the centre of the packing's extent, its surface
 * GAP from the face's tangent plane, moving in at SPEED; the size and
 * material of the first moving sphere. @return 0, or EXIT_INPUT when it
 * would overlap a sphere or lie outside a wall. */
static int striker_at(const pack_args *a, const cr_model *m, const double *x, size_t n, double *xs,
                      double *vs, double *rs, size_t *like)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    *like = 0;
    while (*like + 1 < n && cr_model_is_fixed(m, *like))
        (*like)++;
    *rs = cr_model_radius(m, *like);
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) {
            lo[d] = fmin(lo[d], x[3 * i + (size_t)d] - cr_model_radius(m, i));
            hi[d] = fmax(hi[d], x[3 * i + (size_t)d] + cr_model_radius(m, i));
        }
    int k = a->s_axis;
    for (int d = 0; d < 3; d++) {
        xs[d] = 0.5 * (lo[d] + hi[d]);
        vs[d] = 0.0;
    }
    xs[k] = a->s_sign < 0 ? lo[k] - a->s_gap - *rs : hi[k] + a->s_gap + *rs;
    vs[k] = -a->s_sign * a->s_speed;
    for (size_t i = 0; i < n; i++) {
        const double *p = x + 3 * i;
        if (hypot(hypot(p[0] - xs[0], p[1] - xs[1]), p[2] - xs[2]) < cr_model_radius(m, i) + *rs) {
            tools_error("pack: --striker: the striker would overlap sphere %zu", i);
            return EXIT_INPUT;
        }
    }
    for (size_t w = 0; w < cr_model_plane_count(m); w++) {
        double nrm[3], off;
        cr_model_get_plane(m, w, nrm, &off);
        if (nrm[0] * xs[0] + nrm[1] * xs[1] + nrm[2] * xs[2] - off < *rs) {
            tools_error("pack: --striker: the striker would lie outside wall %zu", w);
            return EXIT_INPUT;
        }
    }
    return 0;
}

/* Appends the striker to the model and to x, v (grown to n + 1 bodies). */
static int add_striker(const pack_args *a, cr_model *m, double **x, double **v, size_t n)
{
    double xs[3], vs[3], rs, E, nu;
    size_t like;
    int st = striker_at(a, m, *x, n, xs, vs, &rs, &like);
    if (st)
        return st;
    double *nx = realloc(*x, 3 * (n + 1) * sizeof *nx);
    if (nx)
        *x = nx;
    double *nv = nx ? calloc(3 * (n + 1), sizeof *nv) : NULL;
    if (nv && *v)
        memcpy(nv, *v, 3 * n * sizeof *nv);
    int i = nv ? cr_model_add_body(m, cr_model_mass(m, like), rs, xs, vs) : -1;
    if (i < 0) {
        free(nv);
        tools_error("pack: out of memory");
        return EXIT_RUN;
    }
    if (cr_model_material(m, like, &E, &nu))
        cr_model_set_material(m, (size_t)i, E, nu);
    memcpy(*x + 3 * n, xs, sizeof xs);
    memcpy(nv + 3 * n, vs, sizeof vs);
    free(*v);
    *v = nv;
    return 0;
}

static int pack_write(const pack_args *a, const char *yaml, const char *lmp)
{
    if (write_whole(a->out, yaml) != 0) {
        tools_error("pack: %s: cannot write it", a->out);
        return EXIT_RUN;
    }
    if (lmp && write_whole(a->lammps, lmp) != 0) {
        tools_error("pack: %s: cannot write it", a->lammps);
        return EXIT_RUN;
    }
    return 0;
}

static int pack_outputs_ok(const pack_args *a)
{
    char msg[512];
    if (tools_check_output(a->out, a->input, msg, sizeof msg) != 0 ||
        (a->lammps && tools_check_output(a->lammps, a->input, msg, sizeof msg) != 0)) {
        tools_error("pack: %s", msg);
        return EXIT_INPUT;
    }
    if (a->lammps && strcmp(a->lammps, a->out) == 0) {
        tools_error("pack: --lammps and -o name the same file");
        return EXIT_USAGE;
    }
    return 0;
}

int cmd_pack(int argc, char **argv)
{
    pack_args a;
    int st = pack_parse(argc, argv, &a);
    if (st)
        return st < 0 ? 0 : st;
    if ((st = pack_outputs_ok(&a)))
        return st;
    char *text = NULL, *yaml = NULL, *lmp = NULL;
    cr_model *m = model_input_load(a.input, &a.sets, 1, &text);
    if (!m)
        return EXIT_INPUT;
    double g[3], t_settle = 0.0;
    size_t n = cr_model_body_count(m);
    double *x = malloc((3 * n + 1) * sizeof *x), *v = NULL;
    settle_watch w;
    pack_stats ps;
    if (!x)
        st = EXIT_RUN;
    if (!st)
        st = pack_check_model(&a, m, g);
    if (!st && a.as_given) {
        if (!(v = malloc((3 * n + 1) * sizeof *v)))
            st = EXIT_RUN;
        for (size_t i = 0; !st && i < n; i++)
            cr_model_get_body(m, i, x + 3 * i, v + 3 * i);
    }
    if (!st && !a.as_given)
        st = deposit(&a, m, g, x, &t_settle, &w);
    if (!st && !a.as_given)
        st = relax(m, g, x, &ps);
    if (!st && a.striker)
        st = add_striker(&a, m, &x, &v, n);
    char header[1200] = "";
    if (a.as_given)
        snprintf(header, sizeof header,
                 "# written by cradle pack --no-deposit from %s: its bodies as given, explicit%s\n"
                 "# (docs/model-format.md, \"Packings\")\n",
                 model_input_name(a.input), a.striker ? ", and a striker (the last body)" : "");
    else if (!st)
        deposited_header(header, sizeof header, &a, n, t_settle, &w, &ps);
    if (!st && (!(yaml = packed_text(&a, m, text, x, v, header)) ||
                (a.lammps && !(lmp = lammps_text(m, x, v, model_input_name(a.input))))))
        st = EXIT_RUN;
    if (!st)
        st = pack_write(&a, yaml, lmp);
    if (!st && !a.quiet && a.as_given)
        printf("wrote %zu bodies as given%s -> %s%s%s\n", cr_model_body_count(m),
               a.striker ? " (a striker added)" : "", a.out, a.lammps ? ", " : "",
               a.lammps ? a.lammps : "");
    else if (!st && !a.quiet)
        printf("packed %zu spheres: settled at t = %.6g s (kinetic energy %.3g J), %zu pairs and "
               "%zu wall contacts touching, %zu opened, %ld relaxation passes%s -> %s%s%s\n",
               n, t_settle, w.ke, ps.pairs, ps.wall_contacts, ps.opened, ps.passes,
               a.striker ? "; a striker added" : "", a.out, a.lammps ? ", " : "",
               a.lammps ? a.lammps : "");
    free(x);
    free(v);
    free(text);
    free(yaml);
    free(lmp);
    cr_model_destroy(m);
    return st;
}
