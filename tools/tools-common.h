/* Helpers shared by the cradle subcommands (public API only). */
#ifndef CRADLE_TOOLS_COMMON_H
#define CRADLE_TOOLS_COMMON_H

#include <stdio.h>

/* Exit statuses of the command-line tool. */
enum { EXIT_USAGE = 2, EXIT_INPUT = 3, EXIT_RUN = 4 };

/* Wall-clock seconds from a monotonic clock. */
double tools_now(void);

/* Prints "cradle: <message>" on stderr (one line). */
void tools_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Path of the default model: the installed copy, else the source tree's. */
const char *tools_default_model(void);

/* Subcommands. */
int cmd_law(int argc, char **argv);
void usage_law(FILE *out);

#endif
