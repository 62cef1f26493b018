#include "cradle/common.h"

#include "cr-config.h"

const char *cr_strerror(int code)
{
    switch (code) {
#define CR_X_CASE(name, value, text)                                           \
    case value:                                                                \
        return text;
        CR_ERROR_LIST(CR_X_CASE)
#undef CR_X_CASE
    default:
        return "unknown error";
    }
}

const char *cr_version(void)
{
    return CR_VERSION;
}
