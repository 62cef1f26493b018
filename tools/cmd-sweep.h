/* The sweep and table subcommands (cmd-sweep.c, cmd-table.c). */
#ifndef CRADLE_TOOLS_CMD_SWEEP_H
#define CRADLE_TOOLS_CMD_SWEEP_H

#include <stdio.h>

int cmd_sweep(int argc, char **argv);
void usage_sweep(FILE *out);
int cmd_table(int argc, char **argv);
void usage_table(FILE *out);

#endif
