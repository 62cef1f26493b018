#include "base/sundials.h"

#include "base/base.h"

void cr_sundials_error_handler(int code, const char *module, const char *function, char *msg,
                               void *user)
{
    cr_set_msg(user, CR_ERRMSG_LEN, "%s %s (flag %d): %s", module, function, code, msg);
}
