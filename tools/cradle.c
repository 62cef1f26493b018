/* cradle: command-line tool over the public libcradle API. */
#include <string.h>

#include "cradle/cradle.h"
#include "tools-common.h"

static void usage_main(FILE *out)
{
    fputs("usage: cradle <command> [options]\n"
          "\n"
          "Multiple impacts in mechanics: compliant chains and pools, impact episodes,\n"
          "rigid impact laws.\n"
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
