/*
 * cradle's side of bench/peers: builds one case of issue 12's table, runs it
 * through cr_system with a given method and tolerance, and prints the
 * in-process CPU time (median of --reps runs of create + run), the solver
 * counters and the peak resident set; writes the final velocities for the
 * error against a reference, and the same bodies as a LAMMPS data file so both
 * programs start from bit-identical positions. Prints only; never judges.
 *
 *   peers-cradle CASE [--method auto|bdf|adams|adams-fixed-point]
 *                [--solver auto|klu|gmres|fixed-point] [--rtol R] [--atol A] [--t-end T]
 *                [--reps K] [--vel FILE] [--lammps FILE] [--info]
 *                [--arrival C] [--events] [--engine auto|chain|graph]
 *
 * CASE: five (the default model, newton-cradle-5), three (Acary & Taha's
 * three-ball chain), chain:N (the default model's balls, N of them), pool:N
 * (N steel discs in a triangular packing and one striker, as bench-pool), block:N
 * (N steel spheres in a jittered fcc block struck on its x− face; 3-D).
 * --t-end 0 (the default) runs to the automatic end. --arrival C prints the
 * time of contact C's first maximum compression (where a pulse is); --events
 * prints every located event of the first run; --info the Hertz closed forms.
 * --engine graph runs a chain on the contact-graph engine (its embedding in the
 * plane; --vel then writes x and y of each body), the measurement of
 * docs/performance.md, "Chain path against the contact graph".
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cradle/cradle.h"
#include "cradle/system.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The material of models/newton-cradle-5.yaml. */
static const double E_STEEL = 2.1e11, NU_STEEL = 0.3;

static void hertz_gap(cr_contact_params *law, double K)
{
    cr_contact_params_init(law, K, 1.5, 0.0, CR_RELEASE_GAP);
}

/* newton-cradle-5.yaml with chain.count = n: 20 mm steel balls, the striker
 * 10 µm before n − 1 touching balls at rest, 1 m/s. */
static cr_model *chain(int n)
{
    const double r = 0.01, mass = 0.0329, gap = 1e-5;
    cr_model *m = cr_model_create();
    double x = 0.0;
    for (int i = 0; i < n; i++) {
        cr_model_add_ball(m, mass, r, x, i == 0 ? 1.0 : 0.0);
        x += 2 * r + (i == 0 ? gap : 0.0);
    }
    cr_contact_params law;
    hertz_gap(&law, cr_contact_hertz_stiffness(E_STEEL, NU_STEEL, r, E_STEEL, NU_STEEL, r));
    cr_model_set_default_contact(m, &law);
    return m;
}

/* models/three-ball-chain.yaml: unit masses and stiffness, all touching. Its
 * radius 0.5 is 100 times larger here: the overlap reaches 0.83, and in LAMMPS'
 * geometry balls 1 and 3 (2 apart) would then overlap too. With K given, the
 * chain's dynamics do not depend on the radius. */
static cr_model *three(void)
{
    cr_model *m = cr_model_create();
    for (int i = 0; i < 3; i++)
        cr_model_add_ball(m, 1.0, 50.0, 100.0 * i, i == 0 ? 1.0 : 0.0);
    cr_contact_params law;
    hertz_gap(&law, 1.0);
    cr_model_set_default_contact(m, &law);
    return m;
}

/* bench-pool's packing with a fixed generator (the same discs on every
 * machine): rows touching along x, rows ~1 µm apart, one striker on row 0. */
static cr_model *pool(int n)
{
    const double R = 0.005, M = 0.0041;
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 2);
    int side = (int)ceil(sqrt((double)n)), k = 0;
    unsigned long long s = 7;
    double v0[2] = {0.0, 0.0};
    for (int row = 0; k < n; row++)
        for (int col = 0; col < side && k < n; col++, k++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            double jitter = 1e-6 * (double)(s >> 11) / 9007199254740992.0;
            double x[2] = {2 * R * col + (row % 2) * R, row * (sqrt(3.0) * R + 1e-6) + jitter};
            cr_model_add_body(model, M, R, x, v0);
        }
    double xs[2] = {-2 * R - 1e-5, 0.0}, vs[2] = {1.0, 0.0};
    cr_model_add_body(model, M, R, xs, vs);
    cr_contact_params law;
    hertz_gap(&law, cr_contact_hertz_stiffness(E_STEEL, NU_STEEL, R, E_STEEL, NU_STEEL, R));
    cr_model_set_default_contact(model, &law);
    return model;
}

/* A 3-D packed block struck on one face (issue 24, item 4): n steel spheres
 * (5 mm, as the pool's discs) on a face-centred cubic lattice whose nearest
 * neighbours are 2R + 1 µm apart: the points h·(i, j, k) with i + j + k even,
 * h = (2R + 1 µm)/√2, i and j in [0, L), L = ⌈(2n)^(1/3)⌉, filled x fastest,
 * then y, then z (a partial top layer when the block is not full); every
 * coordinate displaced by an independent draw uniform on [−0.25, 0.25] µm,
 * a hash of the site's place relative to the struck sphere (splitmix64): the
 * same block on every machine, and around the striker the same spheres at
 * every n, so that until the pulse meets the smaller block's sides, every N
 * runs the same collisions (events and steps show when it has). Nearest-neighbour
 * gaps are then 1 µm ± at most 2√3·0.25 µm (no two spheres closer than
 * 0.13 µm). One striker at 1 m/s along +x, aimed at the sphere in the middle
 * of the x− face (a (100) face: the pulse fans out to 4 spheres a layer),
 * 10 µm from that sphere's site. */
static cr_model *block(int n)
{
    const double R = 0.005, M = 0.0041, J = 0.25e-6, h = (2 * R + 1e-6) / sqrt(2.0);
    cr_model *model = cr_model_create();
    cr_model_set_dimension(model, 3);
    int side = (int)ceil(cbrt(2.0 * n) - 1e-9), k = 0;
    int mid = side / 2;
    double v0[3] = {0.0, 0.0, 0.0};
    for (int iz = 0; k < n; iz++)
        for (int iy = 0; iy < side && k < n; iy++)
            for (int ix = (iy + iz) % 2; ix < side && k < n; ix += 2, k++) {
                double x[3] = {h * ix, h * iy, h * iz};
                for (int c = 0; c < 3; c++) {
                    uint64_t z = ((uint64_t)ix << 42) ^ ((uint64_t)(iy - mid + 4096) << 28) ^
                                 ((uint64_t)(iz - mid + 4096) << 14) ^ (uint64_t)c;
                    z += 0x9e3779b97f4a7c15ull; /* splitmix64 */
                    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
                    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
                    z ^= z >> 31;
                    x[c] += J * (2.0 * (double)(z >> 11) / 9007199254740992.0 - 1.0);
                }
                cr_model_add_body(model, M, R, x, v0);
            }
    double xs[3] = {-2 * R - 1e-5, h * mid, h * mid}, vs[3] = {1.0, 0.0, 0.0};
    cr_model_add_body(model, M, R, xs, vs);
    cr_contact_params law;
    hertz_gap(&law, cr_contact_hertz_stiffness(E_STEEL, NU_STEEL, R, E_STEEL, NU_STEEL, R));
    cr_model_set_default_contact(model, &law);
    return model;
}

/* LAMMPS `read_data` input, atom_style sphere: id type diameter density x y z,
 * then velocities. Masses are set again in the input (`set atom I mass`),
 * so the density here only has to be positive. */
static int write_lammps(const cr_model *m, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t n = cr_model_body_count(m);
    int dim = cr_model_dimension(m);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double rmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        double x[3] = {0, 0, 0}, v[3] = {0, 0, 0};
        cr_model_get_body(m, i, x, v);
        for (int d = 0; d < dim; d++) {
            lo[d] = fmin(lo[d], x[d]);
            hi[d] = fmax(hi[d], x[d]);
        }
        rmax = fmax(rmax, cr_model_radius(m, i));
    }
    for (int d = dim; d < 3; d++)
        lo[d] = hi[d] = 0.0;
    /* room for the ejected end balls: the run is short, they travel < 10 r */
    double pad = 20 * rmax;
    fprintf(f, "cradle bench/peers\n\n%zu atoms\n1 atom types\n\n", n);
    fprintf(f, "%.17g %.17g xlo xhi\n%.17g %.17g ylo yhi\n%.17g %.17g zlo zhi\n\n", lo[0] - pad,
            hi[0] + pad, lo[1] - pad, hi[1] + pad, lo[2] - pad, hi[2] + pad);
    fprintf(f, "Atoms # sphere\n\n");
    for (size_t i = 0; i < n; i++) {
        double x[3] = {0, 0, 0}, v[3] = {0, 0, 0}, r = cr_model_radius(m, i);
        cr_model_get_body(m, i, x, v);
        double rho = cr_model_mass(m, i) / (4.0 / 3.0 * 3.14159265358979323846 * r * r * r);
        fprintf(f, "%zu 1 %.17g %.17g %.17g %.17g %.17g\n", i + 1, 2 * r, rho, x[0], x[1], x[2]);
    }
    fprintf(f, "\nVelocities\n\n");
    for (size_t i = 0; i < n; i++) {
        double x[3] = {0, 0, 0}, v[3] = {0, 0, 0};
        cr_model_get_body(m, i, x, v);
        fprintf(f, "%zu %.17g %.17g %.17g 0 0 0\n", i + 1, v[0], v[1], v[2]);
    }
    return fclose(f);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static cr_model *build(const char *which)
{
    if (!strcmp(which, "five"))
        return chain(5);
    if (!strcmp(which, "three"))
        return three();
    if (!strncmp(which, "chain:", 6))
        return chain(atoi(which + 6));
    if (!strncmp(which, "pool:", 5))
        return pool(atoi(which + 5));
    if (!strncmp(which, "block:", 6))
        return block(atoi(which + 6));
    return NULL;
}

/* Peak resident set of this program in kB: VmHWM, which exec resets. Linux
 * keeps ru_maxrss across fork and exec, so a child of a larger parent (the
 * Python harness) would report the parent's peak; ru_maxrss only where
 * /proc is missing. */
static long peak_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld", &kb) == 1)
            break;
    if (f)
        fclose(f);
    if (kb < 0) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        kb = ru.ru_maxrss;
    }
    return kb;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: peers-cradle CASE [options] (see the source)\n");
        return 2;
    }
    const char *which = argv[1], *vel = NULL, *lmp = NULL;
    double rtol = 1e-10, atol_in = -1.0, t_end = 0.0;
    int reps = 1, info = 0, events = 0;
    long arrival = -1;
    static const char *const mnames[] = {"bdf", "adams", "adams-fixed-point", "auto", "erk"};
    cr_method method = CR_METHOD_BDF;
    cr_linear_solver solver = CR_SOLVER_AUTO;
    cr_engine_path engine = CR_ENGINE_AUTO;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--info") || !strcmp(a, "--events")) {
            *(a[2] == 'i' ? &info : &events) = 1;
            continue;
        }
        i++;
        if (!strcmp(a, "--method")) {
            for (int k = 0; k <= CR_METHOD_ERK; k++)
                if (!strcmp(v, mnames[k]))
                    method = (cr_method)k;
        } else if (!strcmp(a, "--solver"))
            solver = !strcmp(v, "klu")           ? CR_SOLVER_KLU
                     : !strcmp(v, "gmres")       ? CR_SOLVER_GMRES
                     : !strcmp(v, "fixed-point") ? CR_SOLVER_FIXED_POINT
                                                 : CR_SOLVER_AUTO;
        else if (!strcmp(a, "--rtol"))
            rtol = atof(v);
        else if (!strcmp(a, "--atol"))
            atol_in = atof(v);
        else if (!strcmp(a, "--t-end"))
            t_end = atof(v);
        else if (!strcmp(a, "--reps"))
            reps = atoi(v);
        else if (!strcmp(a, "--vel"))
            vel = v;
        else if (!strcmp(a, "--lammps"))
            lmp = v;
        else if (!strcmp(a, "--engine"))
            engine = !strcmp(v, "graph")   ? CR_ENGINE_GRAPH
                     : !strcmp(v, "chain") ? CR_ENGINE_CHAIN
                                           : CR_ENGINE_AUTO;
        else if (!strcmp(a, "--arrival"))
            arrival = atol(v);
        else {
            fprintf(stderr, "peers-cradle: unknown option %s\n", a);
            return 2;
        }
    }
    cr_model *m = build(which);
    if (!m) {
        fprintf(stderr, "peers-cradle: unknown case %s\n", which);
        return 2;
    }
    if (lmp)
        return write_lammps(m, lmp) ? 1 : 0;
    if (info) {
        /* Hertz two-body closed forms (Johnson, Contact Mechanics, 1985, §11.4) for
         * the first contact at the striker's speed V: δmax = (5μV²/(4K))^(2/5),
         * contact time t_c = 2 (δmax/V) ∫₀¹ dx/√(1 − x^(5/2))
         * = (δmax/V) · (4/5) B(2/5, 1/2) = 2.94328 δmax/V. */
        const cr_contact_params *law = cr_model_default_contact(m);
        size_t nb = cr_model_body_count(m);
        double V = 0.0;
        for (size_t i = 0; i < nb; i++) {
            double x[3] = {0, 0, 0}, v[3] = {0, 0, 0};
            cr_model_get_body(m, i, x, v);
            V = fmax(V, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
        }
        double mass = cr_model_mass(m, 0), mu = 0.5 * mass;
        double dmax = pow(5.0 * mu * V * V / (4.0 * law->K), 0.4);
        printf("bodies=%zu dim=%d mass=%.17g radius=%.17g K=%.17g mu=%.17g V=%.17g "
               "delta_max=%.17g t_contact=%.17g\n",
               nb, cr_model_dimension(m), mass, cr_model_radius(m, 0), law->K, mu, V, dmax,
               0.8 * tgamma(0.4) * tgamma(0.5) / tgamma(0.9) * dmax / V);
        cr_model_destroy(m);
        return 0;
    }
    cr_settings set = *cr_model_settings(m);
    set.rtol = rtol;
    set.atol = atol_in > 0 ? atol_in : 1e-2 * rtol;
    set.method = method;
    set.solver = solver;
    set.engine = engine;
    cr_model_set_settings(m, &set);

    double *cpu = calloc((size_t)(reps > 0 ? reps : 1), sizeof(double));
    cr_run_stats st = {0};
    double t_final = 0.0, t_arrival = NAN;
    long front = -1; /* the farthest contact with an event: where the pulse got to */
    int rc = CR_OK;
    size_t nb = cr_model_body_count(m), dim = (size_t)cr_model_dimension(m);
    if (engine == CR_ENGINE_GRAPH && dim == 1)
        dim = 2; /* the chain's embedding in the plane */
    double *v = calloc(nb * dim, sizeof(double));
    for (int k = 0; k < (reps > 0 ? reps : 1); k++) {
        char msg[256];
        double t0 = cpu_now();
        cr_system *s = cr_system_create(m, msg, sizeof msg);
        if (!s) {
            fprintf(stderr, "peers-cradle: %s\n", msg);
            return 1;
        }
        rc = cr_system_run(s, t_end);
        cpu[k] = cpu_now() - t0;
        if (rc != CR_OK)
            fprintf(stderr, "peers-cradle: %s\n", cr_system_last_error(s));
        st = cr_system_get_stats(s);
        t_final = cr_system_get_time(s);
        cr_system_get_velocities(s, v);
        const cr_event *ev = cr_system_events(s);
        for (size_t e = 0; e < cr_system_event_count(s); e++) {
            if ((long)ev[e].contact > front)
                front = (long)ev[e].contact;
            if (arrival >= 0 && isnan(t_arrival) && ev[e].contact == (size_t)arrival &&
                ev[e].kind == CR_EVENT_MAX_COMPRESSION)
                t_arrival = ev[e].t;
            if (events && k == 0)
                printf("event t=%.17g contact=%zu kind=%s overlap=%.17g\n", ev[e].t, ev[e].contact,
                       cr_event_kind_name(ev[e].kind), ev[e].overlap);
        }
        cr_system_destroy(s);
    }
    qsort(cpu, (size_t)reps, sizeof(double), cmp_double);
    long maxrss = peak_rss_kb();
    printf("cpu=%.9g cpu_min=%.9g steps=%ld rhs=%ld jac=%ld roots=%ld events=%ld restarts=%ld "
           "t=%.17g rtol=%g atol=%g method=%s maxrss_kb=%ld rc=%d",
           cpu[reps / 2], cpu[0], st.steps, st.rhs_evals, st.jac_evals, st.root_evals, st.events,
           st.restarts, t_final, set.rtol, set.atol, mnames[method], maxrss, rc);
    printf(" front=%ld windows=%ld max_window=%ld locks=%ld", front, st.windows, st.max_window,
           st.locks);
    if (arrival >= 0)
        printf(" arrival=%.17g", t_arrival);
    printf("\n");
    if (vel) {
        FILE *f = fopen(vel, "w");
        if (f) {
            for (size_t i = 0; i < nb * dim; i++)
                fprintf(f, "%.17g\n", v[i]);
            fclose(f);
        }
    }
    free(v);
    free(cpu);
    cr_model_destroy(m);
    return rc == CR_OK ? 0 : 1;
}
