/* cradle table: reference tables of data/ (placeholder until table.c lands). */
#include "cmd-sweep.h"
#include "tools-common.h"

void usage_table(FILE *out)
{
    fputs("usage: cradle table lookup TABLE KEY=VALUE ...\n", out);
}

int cmd_table(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    usage_table(stderr);
    return EXIT_USAGE;
}
