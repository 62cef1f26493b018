#include "tools-common.h"

#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cr-config.h"

double tools_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void tools_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cradle: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

const char *tools_default_model(void)
{
    static const char *const candidates[] = {
        CR_MODELDIR "/newton-cradle-5.yaml",
        CR_SOURCE_ROOT "/models/newton-cradle-5.yaml",
    };
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (access(candidates[i], R_OK) == 0)
            return candidates[i];
    return candidates[1];
}

