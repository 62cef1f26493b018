/* cradle: command-line tool over the public libcradle API. */
#include <errno.h>
#include <sys/stat.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/cradle.h"
#include "tools-common.h"

static cr_sim *volatile running_sim;
static cr_pool *volatile running_pool;

static void on_interrupt(int sig)
{
    (void)sig;
    if (running_sim)
        cr_sim_request_stop(running_sim);
    if (running_pool)
        cr_pool_request_stop(running_pool);
}

static void catch_interrupts(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* What the output callback feeds: the HDF5 store and the monitor's peak-force sampling. */
typedef struct {
    cr_store *store;
    cr_monitor *mon;
} run_sinks;

static int on_output(const cr_sim *sim, void *user)
{
    run_sinks *k = user;
    cr_monitor_sample(k->mon);
    return cr_store_append_frame(k->store, sim);
}

static void print_episodes(const cr_monitor *mon)
{
    size_t n = cr_monitor_episode_count(mon);
    printf("  %zu impact episode%s\n", n, n == 1 ? "" : "s");
    for (size_t k = 0; k < n && k < 20; k++) {
        cr_episode_info in;
        cr_monitor_get_episode(mon, k, &in);
        printf("  episode %zu: t = %.6g .. %.6g s, balls %zu-%zu, reference contact %zu, "
               "kappa = T+/T- = %.9f%s\n",
               k + 1, in.t_start, in.t_end, in.first_ball, in.last_ball, in.reference, in.kappa,
               in.complete ? "" : " (still running at the end)");
        size_t nc;
        const cr_contact_record *r = cr_monitor_contacts(mon, k, &nc);
        printf("    %7s %12s %10s %10s %10s %11s %11s\n", "contact", "P [N s]", "alpha", "e_N",
               "e_P", "gamma- m/s", "gamma+ m/s");
        for (size_t c = 0; c < nc && c < 12; c++)
            printf("    %7zu %12.6g %10.6f %10.6f %10.6f %11.6f %11.6f\n", r[c].contact,
                   r[c].impulse, r[c].alpha, r[c].newton, r[c].poisson, r[c].gamma_minus,
                   r[c].gamma_plus);
        if (nc > 12)
            printf("    ... %zu contacts in all (see the HDF5 file)\n", nc);
    }
    if (n > 20)
        printf("  ... %zu episodes in all (see the HDF5 file)\n", n);
}

static void json_num(double v)
{
    printf(isfinite(v) ? "%.17g" : "null", v);
}

static void json_vec(const double *v, size_t n)
{
    putchar('[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            printf(", ");
        json_num(v[i]);
    }
    putchar(']');
}

/* The measured quantities of one contact record, as JSON members. */
static void json_record(const cr_contact_record *r)
{
    const char *names[] = {"impulse", "alpha", "newton", "poisson", "gamma_minus", "gamma_plus"};
    double values[] = {r->impulse, r->alpha, r->newton, r->poisson, r->gamma_minus, r->gamma_plus};
    for (size_t q = 0; q < sizeof values / sizeof values[0]; q++) {
        printf(", \"%s\": ", names[q]);
        json_num(values[q]);
    }
}

static void print_json(const cr_model *model, const cr_sim *sim, const cr_monitor *mon,
                       double wall, const char *out)
{
    size_t nb = cr_sim_ball_count(sim);
    double *v = malloc(nb * sizeof(double));
    cr_sim_get_velocities(sim, v);
    printf("{\"model\": \"%s\", \"output\": \"%s\", \"t_end\": ", cr_model_name(model), out);
    json_num(cr_sim_get_time(sim));
    printf(", \"end_reason\": \"%s\", \"wall_time\": %.6f, \"final_velocities\": ",
           cr_sim_end_reason(sim), wall);
    json_vec(v, nb);
    free(v);
    printf(", \"episodes\": [");
    for (size_t k = 0; k < cr_monitor_episode_count(mon); k++) {
        cr_episode_info in;
        cr_monitor_get_episode(mon, k, &in);
        size_t nc, nbg;
        const cr_contact_record *r = cr_monitor_contacts(mon, k, &nc);
        printf("%s{\"t_start\": %.17g, \"t_end\": %.17g, \"first_ball\": %zu, "
               "\"last_ball\": %zu, \"reference\": %zu, \"complete\": %s, \"kappa\": ",
               k ? ", " : "", in.t_start, in.t_end, in.first_ball, in.last_ball, in.reference,
               in.complete ? "true" : "false");
        json_num(in.kappa);
        printf(", \"dissipated\": ");
        json_num(in.dissipated);
        /* the count comes back through the pointer: fetch before use */
        const double *ub = cr_monitor_velocities(mon, k, 0, &nbg);
        printf(", \"velocity_before\": ");
        json_vec(ub, nbg);
        const double *ua = cr_monitor_velocities(mon, k, 1, &nbg);
        printf(", \"velocity_after\": ");
        json_vec(ua, nbg);
        printf(", \"contacts\": [");
        for (size_t c = 0; c < nc; c++) {
            printf("%s{\"contact\": %zu", c ? ", " : "", r[c].contact);
            json_record(&r[c]);
            printf("}");
        }
        printf("]}");
    }
    printf("]}\n");
}

/* Each episode as a law case for `cradle law`: the impact configuration (M, W, u⁻)
 * and the measured κ, α (and eᴺ where defined) of the compliant run. */
static int export_cases(const char *dir, const cr_sim *sim, const cr_monitor *mon,
                        const char *model_path)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        tools_error("%s: cannot create the folder: %s", dir, strerror(errno));
        return EXIT_RUN;
    }
    size_t written = 0;
    for (size_t k = 0; k < cr_monitor_episode_count(mon); k++) {
        cr_episode_info in;
        size_t nc;
        cr_monitor_get_episode(mon, k, &in);
        const cr_contact_record *r = cr_monitor_contacts(mon, k, &nc);
        cr_impact *imp = nc <= 256 ? cr_monitor_impact(mon, k) : NULL;
        if (!imp)
            continue;
        size_t m = cr_impact_contact_count(imp), col = 0;
        double *alpha = malloc((m + 1) * sizeof(double)), *e = malloc((m + 1) * sizeof(double));
        cr_law_params p;
        cr_law_params_init(&p);
        for (size_t c = 0; alpha && e && c < nc; c++) {
            if (!cr_sim_pair_has_contact(sim, r[c].contact))
                continue;
            if (r[c].contact == in.reference)
                p.reference = col;
            alpha[col] = r[c].alpha;
            /* eᴺ is undefined for contacts touching at rest: 1 stands in for it */
            e[col] = isfinite(r[c].newton) && r[c].newton >= 0 && r[c].newton <= 1 ? r[c].newton
                                                                                   : 1.0;
            col++;
        }
        p.kappa = in.kappa;
        p.alpha = alpha;
        p.restitutions = e;
        char path[1024], comment[512];
        snprintf(path, sizeof path, "%s/episode-%04zu.yaml", dir, k);
        snprintf(comment, sizeof comment,
                 "episode %zu of %s, t = %.9g .. %.9g s, balls %zu-%zu; kappa and alpha as "
                 "measured; restitution = measured e_N (1 where undefined)",
                 k, model_path, in.t_start, in.t_end, in.first_ball, in.last_ball);
        FILE *f = alpha && e ? fopen(path, "w") : NULL;
        int rc = f ? cr_lawcase_write(f, imp, &p, comment) : CR_ERR_IO;
        if (f && fclose(f) != 0)
            rc = CR_ERR_IO;
        free(alpha);
        free(e);
        cr_impact_destroy(imp);
        if (rc != CR_OK) {
            tools_error("%s: cannot write", path);
            return EXIT_RUN;
        }
        written++;
    }
    fprintf(stderr, "cradle: %zu law case%s written to %s/\n", written, written == 1 ? "" : "s",
            dir);
    return 0;
}

static void usage_main(FILE *out)
{
    fputs("usage: cradle <command> [options]\n"
          "\n"
          "Multiple impacts in mechanics: compliant chains, impact episodes, rigid laws.\n"
          "\n"
          "commands:\n"
          "  run [MODEL] [-o FILE]   integrate a model file (default: a 5-ball Newton's\n"
          "                          cradle) and write the trajectory to HDF5\n"
          "  law NAME --input CASE   apply a rigid impact law (newton, poisson, ...)\n"
          "                          to an impact configuration\n"
          "  help [COMMAND]          show help\n"
          "\n"
          "options:\n"
          "  --version               print the version\n"
          "  -h, --help              show this help\n",
          out);
}

static void usage_run(FILE *out)
{
    fprintf(out,
            "usage: cradle run [MODEL] [-o FILE] [-q] [--json] [--cases DIR]\n"
            "\n"
            "Integrates the compliant model in MODEL (YAML, see docs/model-format.md)\n"
            "with CVODES, locating every contact closing, maximum compression and\n"
            "release, prints a summary and writes FILE (HDF5, docs/hdf5-layout.md).\n"
            "\n"
            "  MODEL               model file (default: %s)\n"
            "  -o, --output FILE   output file (default: cradle-out.h5)\n"
            "  -q, --quiet         print nothing but errors\n"
            "  -j, --json          print the summary and the impact episodes as JSON\n"
            "  -c, --cases DIR     write each episode as a law case (M, W, u-, measured\n"
            "                      kappa, alpha, e_N) for `cradle law`\n"
            "  -h, --help          show this help\n"
            "\n"
            "Ctrl-C stops the run at the next output time and keeps a valid file\n"
            "whose 'status' attribute says \"interrupted\".\n",
            tools_default_model());
}

static void print_summary(const cr_model *model, const char *path, const cr_sim *sim,
                          double E0, double p0, double wall, const char *out)
{
    size_t nb = cr_sim_ball_count(sim), nc = cr_sim_contact_count(sim);
    cr_sim_stats st = cr_sim_get_stats(sim);
    printf("cradle %s: %s (%s)\n", cr_version(), cr_model_name(model), path);
    if (nc > 0) {
        const cr_contact_params *p = cr_model_contact(model, 0);
        printf("  %zu bodies, %zu pairs; contact 0: K = %.4g, n = %g, C = %.6g, release %s\n",
               nb, nc, p->K, p->n, p->C, cr_release_name(p->release));
        double e, v;
        if (cr_model_contact_target(model, 0, &e, &v))
            printf("  (C solved for restitution %g at %g m/s)\n", e, v);
    } else {
        printf("  %zu ball, no contacts\n", nb);
    }
    printf("  integrated 0 -> %.6g s (%s)\n", cr_sim_get_time(sim), cr_sim_end_reason(sim));
    printf("  %ld steps, %ld RHS, %ld Jacobians, %ld events, %ld restarts, %.3f s wall\n",
           st.steps, st.rhs_evals, st.jac_evals, st.events, st.restarts, wall);
    double *v = malloc(nb * sizeof(double));
    if (v) {
        cr_sim_get_velocities(sim, v);
        printf("  final velocities (m/s):");
        for (size_t i = 0; i < nb && i < 12; i++)
            printf(" %.6f", v[i]);
        printf(nb > 12 ? " ...\n" : "\n");
        free(v);
    }
    double T = cr_sim_kinetic_energy(sim), U = cr_sim_potential_energy(sim);
    double W = cr_sim_dissipated_work(sim), p = cr_sim_momentum(sim);
    /* U holds contact, link and field energy, so T + U + W is conserved */
    printf("  energy: E0 = %.9g J; T + U + dissipated = %.9g + %.3g + %.3g J; "
           "balance %.2e (relative)\n",
           E0, T, U, W, E0 != 0 ? fabs(T + U + W - E0) / fabs(E0) : fabs(T + U + W));
    int closed = !cr_model_has_fields(model);
    for (size_t i = 0; i < nb; i++)
        closed &= !cr_model_is_fixed(model, i);
    if (closed)
        printf("  momentum: p0 = %.9g, p = %.9g N s; balance %.2e (relative)\n", p0, p,
               fabs(p0) > 0 ? fabs(p - p0) / fabs(p0) : fabs(p - p0));
    else
        printf("  momentum: p0 = %.9g, p = %.9g N s (walls or fields: not conserved)\n", p0, p);
    printf("  wrote %s\n", out);
    (void)0;
}

/* A planar pool: integrate, summarise, write the results. */
static void print_pool_json(const cr_pool *pool, const cr_pool_monitor *mon, double wall,
                            const char *out)
{
    size_t n = cr_pool_disc_count(pool);
    double *v = malloc(2 * n * sizeof(double));
    if (!v)
        return;
    cr_pool_get_velocities(pool, v);
    printf("{\"model_kind\": \"pool-2d\", \"output\": \"%s\", \"t_end\": ", out);
    json_num(cr_pool_get_time(pool));
    printf(", \"wall_time\": %.6f, \"final_velocities\": ", wall);
    json_vec(v, 2 * n);
    free(v);
    printf(", \"episodes\": [");
    for (size_t k = 0; k < cr_pool_monitor_episode_count(mon); k++) {
        cr_episode_info in;
        cr_pool_monitor_get_episode(mon, k, &in);
        size_t nd, nc;
        const size_t *disc = cr_pool_monitor_discs(mon, k, &nd);
        const cr_contact_record *r = cr_pool_monitor_contacts(mon, k, &nc);
        const double *vec = cr_pool_monitor_vector_impulses(mon, k, &nc);
        printf("%s{\"t_start\": %.17g, \"t_end\": %.17g, \"reference\": %zu, \"kappa\": ",
               k ? ", " : "", in.t_start, in.t_end, in.reference);
        json_num(in.kappa);
        printf(", \"discs\": [");
        for (size_t q = 0; q < nd; q++)
            printf("%s%zu", q ? ", " : "", disc[q]);
        printf("], \"contacts\": [");
        for (size_t c = 0; c < nc; c++) {
            long i, j;
            cr_pool_contact_bodies(pool, r[c].contact, &i, &j);
            printf("%s{\"contact\": %zu, \"i\": %ld, \"j\": %ld", c ? ", " : "", r[c].contact,
                   i, j);
            json_record(&r[c]);
            printf(", \"vector_impulse\": ");
            json_vec(vec + 2 * c, 2);
            printf("}");
        }
        printf("]}");
    }
    printf("]}\n");
}

static int run_pool(const char *path, const char *text, const cr_model *model, const char *out,
                    int quiet, int json)
{
    char msg[1024];
    cr_pool *pool = cr_pool_create_from_model(model, msg, sizeof msg);
    if (!pool) {
        tools_error("%s: %s", path, msg);
        return EXIT_INPUT;
    }
    double E0 = cr_pool_kinetic_energy(pool), px0, py0;
    cr_pool_momentum(pool, &px0, &py0);
    cr_store *store = cr_store_create_pool(out, pool, path, text, msg, sizeof msg);
    if (!store) {
        tools_error("%s", msg);
        cr_pool_destroy(pool);
        return EXIT_RUN;
    }
    cr_pool_monitor *mon = cr_pool_monitor_create(pool);
    cr_pool_set_output(pool, cr_model_settings(model)->output_interval,
                       cr_store_pool_output_callback, store);
    running_pool = pool;
    catch_interrupts();
    double t0 = tools_now();
    int rc = cr_pool_run(pool, cr_model_settings(model)->t_end);
    double wall = tools_now() - t0;
    running_pool = NULL;
    if (rc != CR_OK && rc != CR_ERR_INTERRUPTED) {
        tools_error("%s: %s", path, cr_pool_last_error(pool));
        cr_pool_monitor_destroy(mon);
        cr_store_destroy(store);
        cr_pool_destroy(pool);
        return rc == CR_ERR_MODEL || rc == CR_ERR_INVALID ? EXIT_INPUT : EXIT_RUN;
    }
    cr_pool_monitor_finish(mon);
    if (cr_store_commit_pool(store, pool, mon, rc == CR_OK ? "complete" : "interrupted") !=
        CR_OK) {
        tools_error("%s", cr_store_last_error(store));
        cr_pool_monitor_destroy(mon);
        cr_store_destroy(store);
        cr_pool_destroy(pool);
        return EXIT_RUN;
    }
    cr_store_destroy(store);
    if (rc == CR_ERR_INTERRUPTED) {
        tools_error("%s; partial results kept in %s", cr_pool_last_error(pool), out);
        cr_pool_monitor_destroy(mon);
        cr_pool_destroy(pool);
        return 130;
    }
    if (json)
        print_pool_json(pool, mon, wall, out);
    if (!quiet) {
        size_t n = cr_pool_disc_count(pool);
        cr_sim_stats st = cr_pool_get_stats(pool);
        double px, py, *v = malloc(2 * n * sizeof(double));
        cr_pool_momentum(pool, &px, &py);
        printf("cradle %s: pool of %zu discs (%s)\n", cr_version(), n, path);
        printf("  integrated 0 -> %.6g s; %ld steps, %zu events, %zu contacts seen, %ld "
               "neighbour rebuilds, %.3f s wall\n",
               cr_pool_get_time(pool), st.steps, cr_pool_event_count(pool),
               cr_pool_contact_count(pool), cr_pool_rebuilds(pool), wall);
        if (v) {
            cr_pool_get_velocities(pool, v);
            printf("  final velocities (m/s):");
            for (size_t i = 0; i < n && i < 6; i++)
                printf(" (%.6f, %.6f)", v[2 * i], v[2 * i + 1]);
            printf(n > 6 ? " ...\n" : "\n");
            free(v);
        }
        double T = cr_pool_kinetic_energy(pool), U = cr_pool_potential_energy(pool);
        double W = cr_pool_dissipated_work(pool);
        printf("  energy: E0 = %.9g J; T + U + dissipated = %.9g J; balance %.2e (relative)\n",
               E0, T + U + W, E0 > 0 ? fabs(T + U + W - E0) / E0 : 0.0);
        printf("  momentum: (%.9g, %.9g) -> (%.9g, %.9g) N s%s\n", px0, py0, px, py,
               "  (walls take momentum)");
        printf("  wrote %s\n", out);
        size_t ne = cr_pool_monitor_episode_count(mon);
        printf("  %zu impact episode%s\n", ne, ne == 1 ? "" : "s");
        for (size_t k = 0; k < ne && k < 20; k++) {
            cr_episode_info in;
            cr_pool_monitor_get_episode(mon, k, &in);
            size_t nd, nc;
            cr_pool_monitor_discs(mon, k, &nd);
            const cr_contact_record *r = cr_pool_monitor_contacts(mon, k, &nc);
            printf("  episode %zu: t = %.6g .. %.6g s, %zu discs, reference contact %zu, "
                   "kappa = %.9f\n",
                   k + 1, in.t_start, in.t_end, nd, in.reference, in.kappa);
            printf("    %7s %6s %12s %10s %10s %10s\n", "contact", "with", "P [N s]", "alpha",
                   "e_N", "e_P");
            for (size_t c = 0; c < nc && c < 12; c++) {
                long i, j;
                cr_pool_contact_bodies(pool, r[c].contact, &i, &j);
                char with[32];
                if (j >= 0)
                    snprintf(with, sizeof with, "%ld-%ld", i, j);
                else
                    snprintf(with, sizeof with, "%ld|w%ld", i, -1 - j);
                printf("    %7zu %6s %12.6g %10.6f %10.6f %10.6f\n", r[c].contact, with,
                       r[c].impulse, r[c].alpha, r[c].newton, r[c].poisson);
            }
        }
    }
    cr_pool_monitor_destroy(mon);
    cr_pool_destroy(pool);
    return 0;
}

static int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"cases", required_argument, NULL, 'c'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *out = "cradle-out.h5";
    int quiet = 0, json = 0, c;
    const char *cases_dir = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qjc:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'j':
            json = 1;
            break;
        case 'c':
            cases_dir = optarg;
            break;
        case 'h':
            usage_run(stdout);
            return 0;
        default:
            usage_run(stderr);
            return EXIT_USAGE;
        }
    }
    if (argc - optind > 1) {
        tools_error("run takes one model file, got %d arguments", argc - optind);
        return EXIT_USAGE;
    }
    const char *path = optind < argc ? argv[optind] : tools_default_model();

    char msg[1024];
    cr_model *model = NULL;
    size_t len = 0;
    char *text = cr_file_read(path, &len, msg, sizeof msg, NULL);
    if (!text) {
        tools_error("%s", msg);
        return EXIT_INPUT;
    }
    if (cr_modelfile_parse(text, len, path, &model, msg, sizeof msg) != CR_OK) {
        tools_error("%s", msg);
        free(text);
        return EXIT_INPUT;
    }
    if (cr_calibrate_model(model, msg, sizeof msg) != CR_OK) {
        tools_error("%s: calibration: %s", path, msg);
        cr_model_destroy(model);
        free(text);
        return EXIT_INPUT;
    }
    if (cr_model_dimension(model) == 2) {
        int st = run_pool(path, text, model, out, quiet || json, json);
        cr_model_destroy(model);
        free(text);
        return st;
    }
    cr_sim *sim = cr_sim_create(model, msg, sizeof msg);
    if (!sim) {
        tools_error("%s: %s", path, msg);
        cr_model_destroy(model);
        free(text);
        return EXIT_INPUT;
    }
    cr_store *store = cr_store_create(out, model, path, text, msg, sizeof msg);
    free(text);
    if (!store) {
        tools_error("%s", msg);
        cr_sim_destroy(sim);
        cr_model_destroy(model);
        return EXIT_RUN;
    }
    run_sinks sinks = {store, cr_monitor_create(sim)};
    if (!sinks.mon) {
        tools_error("out of memory");
        cr_store_destroy(store);
        cr_sim_destroy(sim);
        cr_model_destroy(model);
        return EXIT_RUN;
    }
    cr_sim_set_output(sim, cr_model_settings(model)->output_interval, on_output, &sinks);
    double E0 = cr_sim_kinetic_energy(sim) + cr_sim_potential_energy(sim);
    double p0 = cr_sim_momentum(sim);

    running_sim = sim;
    catch_interrupts();
    double t0 = tools_now();
    int rc = cr_sim_run(sim, cr_model_settings(model)->t_end);
    double wall = tools_now() - t0;
    running_sim = NULL;

    int status = 0;
    if (rc == CR_OK || rc == CR_ERR_INTERRUPTED) {
        cr_monitor_finish(sinks.mon);
        if (cr_store_write_episodes(store, sinks.mon) != CR_OK ||
            cr_store_commit(store, sim, rc == CR_OK ? "complete" : "interrupted") != CR_OK) {
            tools_error("%s", cr_store_last_error(store));
            status = EXIT_RUN;
        } else if (rc == CR_ERR_INTERRUPTED) {
            tools_error("%s; partial results kept in %s", cr_sim_last_error(sim), out);
            status = 130;
        } else if (json) {
            print_json(model, sim, sinks.mon, wall, out);
        } else if (!quiet) {
            print_summary(model, path, sim, E0, p0, wall, out);
            print_episodes(sinks.mon);
        }
        if (status == 0 && cases_dir)
            status = export_cases(cases_dir, sim, sinks.mon, path);
    } else {
        tools_error("%s: %s", path, cr_sim_last_error(sim));
        status = EXIT_RUN;
    }
    cr_monitor_destroy(sinks.mon);
    cr_store_destroy(store);
    cr_sim_destroy(sim);
    cr_model_destroy(model);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage_main(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("cradle %s\n", cr_version());
        return 0;
    }
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        usage_main(stdout);
        return 0;
    }
    if (strcmp(cmd, "help") == 0) {
        if (argc > 2 && strcmp(argv[2], "run") == 0)
            usage_run(stdout);
        else if (argc > 2 && strcmp(argv[2], "law") == 0)
            usage_law(stdout);
        else
            usage_main(stdout);
        return 0;
    }
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "law") == 0)
        return cmd_law(argc - 1, argv + 1);
    tools_error("unknown command '%s' (try 'cradle help')", cmd);
    return EXIT_USAGE;
}
