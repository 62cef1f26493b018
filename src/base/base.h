/* The base layer's helpers every folder uses: fixed message buffers and the
 * argument check (CONVENTIONS §6, §7). Nothing here knows a model or a system. */
#ifndef CRADLE_BASE_H
#define CRADLE_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "cradle/common.h"

#define CR_ERRMSG_LEN 512
/* Writes a formatted message into a fixed buffer (never fails, truncates). */
static inline void cr_set_msg(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void cr_set_msg(char *buf, size_t len, const char *fmt, ...)
{
    if (!buf || len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* Argument check in pixman's return_val_if_fail style: records the failed
 * condition in the object's message buffer and returns the code. */
#define CR_CHECK(cond, msgbuf, code)                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            cr_set_msg((msgbuf), CR_ERRMSG_LEN, "%s: check failed: %s", __func__, #cond);          \
            return (code);                                                                         \
        }                                                                                          \
    } while (0)

#endif
