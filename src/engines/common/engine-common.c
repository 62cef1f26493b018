#include "engines/common/engine-common.h"

#include <stdio.h>
#include <stdlib.h>

int cr_run_stopped(int rc, double t, char *reason, size_t reason_len, char *err, size_t err_len)
{
    if (rc == CR_ERR_INTERRUPTED) {
        snprintf(reason, reason_len, "interrupted");
        cr_set_msg(err, err_len, "run interrupted at t = %.9g s", t);
    } else {
        snprintf(reason, reason_len, "stopped by a listener");
        cr_set_msg(err, err_len, "a listener failed at t = %.9g s: %s", t, cr_strerror(rc));
    }
    return rc;
}

int cr_event_room(cr_event **events, size_t n, size_t *cap)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 64;
    cr_event *e = realloc(*events, c * sizeof(*e));
    if (!e)
        return -1;
    *events = e;
    *cap = c;
    return 0;
}
