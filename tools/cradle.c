/* cradle: command-line tool over the public libcradle API. */
#include <stdlib.h>
#include <string.h>

#include "cradle/cradle.h"
#include "cmd-sweep.h"
#include "tools-common.h"

static void usage_main(FILE *out)
{
    fputs("usage: cradle <command> [options]\n"
          "\n"
          "Multiple impacts in mechanics: compliant chains and pools, impact episodes,\n"
          "rigid impact laws.\n"
          "\n"
          "commands:\n"
          "  run [MODEL|-] [-o FILE] integrate a model file (default: a 5-ball Newton's\n"
          "                          cradle) and write the trajectory to HDF5;\n"
          "                          --set PATH=VALUE changes a field (docs/sweep.md)\n"
          "  law NAME --input CASE   apply a rigid impact law (newton, poisson, ...)\n"
          "                          to an impact configuration\n"
          "  law NAME --input RUN.h5 --episode K\n"
          "                          the same on an episode of a run file, with the\n"
          "                          parameters measured on it (docs/compare.md)\n"
          "  compare MODEL|RUN.h5    every rigid law on every impact episode,\n"
          "                          calibrated and predictive\n"
          "  sweep SWEEP.yaml        a grid over model-file fields, every point run and\n"
          "                          compared, one table (OpenMP threads, MPI ranks;\n"
          "                          docs/sweep.md)\n"
          "  table lookup TABLE k=v  a reference table of data/ interpolated, with its\n"
          "                          error bound (also table info, table make)\n"
          "  fit MODEL DATA.csv --vary PATH[=LO:HI]\n"
          "                          fit model-file fields to measurements, with\n"
          "                          standard errors; --predict another model (docs/fit.md)\n"
          "  pack MODEL -o PACKED.yaml [--lammps PACKED.data]\n"
          "                          a 3-D packing: deposition under gravity, then\n"
          "                          relaxation to a touching network (docs/model-format.md)\n"
          "  help [COMMAND]          show help\n"
          "\n"
          "options:\n"
          "  --version               print the version\n"
          "  -h, --help              show this help\n",
          out);
}

/* `law` on a run file's episode (--episode K) goes to cmd-compare.c; a case
 * file to cmd-law.c. */
static int has_option(int argc, char **argv, const char *name)
{
    size_t n = strlen(name);
    for (int i = 2; i < argc; i++)
        if (strncmp(argv[i], name, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '='))
            return 1;
    return 0;
}

static void usage_law_all(FILE *out)
{
    usage_law(out);
    fputs("\n"
          "       cradle law NAME --input RUN.h5 --episode K [--mode calibrated|predictive]\n"
          "                 [--json]\n"
          "\n"
          "Applies the law to episode K of a run file (`cradle run -o RUN.h5`), with the\n"
          "parameters measured on it (calibrated, the default) or from two-body runs\n"
          "(predictive), as `cradle compare` does (docs/compare.md).\n",
          out);
}

static int dispatch(int argc, char **argv);

/* Every command ends through tools_exit (a failed one without HDF5's exit
 * handler, which crashes after a failed close). */
int main(int argc, char **argv)
{
    /* OpenBLAS starts its thread pool when the rigid laws first load it, and
     * its idle threads spin in sched_yield (13 % of a rigid pendulum-cradle
     * run): the matrices are one impact's, sweeps are parallel over points.
     * Set here, before any thread exists; a user's own setting is kept. */
    setenv("OPENBLAS_NUM_THREADS", "1", 0);
    return tools_exit(dispatch(argc, argv));
}

static int dispatch(int argc, char **argv)
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
            usage_law_all(stdout);
        else if (argc > 2 && strcmp(argv[2], "compare") == 0)
            usage_compare(stdout);
        else if (argc > 2 && strcmp(argv[2], "sweep") == 0)
            usage_sweep(stdout);
        else if (argc > 2 && strcmp(argv[2], "table") == 0)
            usage_table(stdout);
        else if (argc > 2 && strcmp(argv[2], "fit") == 0)
            usage_fit(stdout);
        else if (argc > 2 && strcmp(argv[2], "pack") == 0)
            usage_pack(stdout);
        else if (argc > 2) {
            /* a topic we have no page for is a usage error, not the general page */
            tools_error("help: no topic '%s' (topics: run, law, compare, sweep, table, fit, pack)",
                        argv[2]);
            return EXIT_USAGE;
        } else
            usage_main(stdout);
        return 0;
    }
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "law") == 0)
        return has_option(argc, argv, "--episode") ? cmd_law_episode(argc - 1, argv + 1)
                                                   : cmd_law(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0)
        return cmd_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "sweep") == 0)
        return cmd_sweep(argc - 1, argv + 1);
    if (strcmp(cmd, "table") == 0)
        return cmd_table(argc - 1, argv + 1);
    if (strcmp(cmd, "fit") == 0)
        return cmd_fit(argc - 1, argv + 1);
    if (strcmp(cmd, "pack") == 0)
        return cmd_pack(argc - 1, argv + 1);
    tools_error("unknown command '%s' (try 'cradle help')", cmd);
    return EXIT_USAGE;
}
