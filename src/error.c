#include "cradle/common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

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

char *cr_file_read(const char *path, size_t *len_out, char *msg, size_t msglen, int *rc)
{
    int dummy;
    if (!rc)
        rc = &dummy;
    FILE *fp = path ? fopen(path, "rb") : NULL;
    if (!fp) {
        cr_set_msg(msg, msglen, "%s: cannot open: %s", path ? path : "(null)", strerror(errno));
        *rc = CR_ERR_IO;
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    while (text) {
        len += fread(text + len, 1, cap - 1 - len, fp);
        if (len < cap - 1)
            break;
        char *t = realloc(text, cap * 2);
        if (!t) {
            free(text);
            text = NULL;
            break;
        }
        text = t;
        cap *= 2;
    }
    int read_error = ferror(fp);
    fclose(fp);
    if (!text || read_error) {
        free(text);
        cr_set_msg(msg, msglen, "%s: %s", path, read_error ? "read error" : "out of memory");
        *rc = read_error ? CR_ERR_IO : CR_ERR_NOMEM;
        return NULL;
    }
    text[len] = '\0';
    *len_out = len;
    *rc = CR_OK;
    return text;
}
