#include "cradle/common.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/base.h"

#include "cr-config.h"

const char *cr_strerror(int code)
{
    switch (code) {
#define CR_X_CASE(name, value, text)                                                               \
    case value:                                                                                    \
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

/*
 * Input files are read whole: YAML needs the text in one piece. A cap keeps a
 * mistaken path (/dev/zero, a multi-GB log) from eating the memory; the largest
 * legitimate input, a law case at the law core's size cap written out in full
 * (10⁶ numbers of %.17g), is about 25 MB.
 */
#define CR_FILE_MAX_BYTES (64u << 20)

char *cr_file_read(const char *path, size_t *len_out, char *msg, size_t msglen, int *rc)
{
    int dummy;
    if (!rc)
        rc = &dummy;
    if (!path || !path[0]) {
        cr_set_msg(msg, msglen, "%s: no file name given", path ? "''" : "(null)");
        *rc = CR_ERR_IO;
        return NULL;
    }
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        cr_set_msg(msg, msglen, "%s: cannot open: %s", path, strerror(errno));
        *rc = CR_ERR_IO;
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        cr_set_msg(msg, msglen, "%s: is a directory, not a file", path);
        *rc = CR_ERR_IO;
        return NULL;
    }
    /* a regular file says its size: refused before anything is read */
    if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > CR_FILE_MAX_BYTES) {
        fclose(fp);
        cr_set_msg(msg, msglen, "%s: larger than %u MiB: not an input file", path,
                   CR_FILE_MAX_BYTES >> 20);
        *rc = CR_ERR_IO;
        return NULL;
    }
    /* a pipe or a device does not: read at most the cap and one byte more
     * (the buffer grows by doubling up to cap + 2 bytes, never beyond) */
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    int too_big = 0;
    while (text) {
        len += fread(text + len, 1, cap - 1 - len, fp);
        if (len > CR_FILE_MAX_BYTES) {
            too_big = 1;
            break;
        }
        if (len < cap - 1)
            break;
        size_t grow =
            cap * 2 > (size_t)CR_FILE_MAX_BYTES + 2 ? (size_t)CR_FILE_MAX_BYTES + 2 : cap * 2;
        char *t = realloc(text, grow);
        if (!t) {
            free(text);
            text = NULL;
            break;
        }
        text = t;
        cap = grow;
    }
    int read_errno = ferror(fp) ? errno : 0;
    fclose(fp);
    if (!text || read_errno || too_big) {
        *rc = read_errno || too_big ? CR_ERR_IO : CR_ERR_NOMEM;
        free(text);
        if (too_big)
            cr_set_msg(msg, msglen, "%s: larger than %u MiB: not an input file", path,
                       CR_FILE_MAX_BYTES >> 20);
        else if (read_errno)
            cr_set_msg(msg, msglen, "%s: read error: %s", path, strerror(read_errno));
        else
            cr_set_msg(msg, msglen, "%s: out of memory", path);
        return NULL;
    }
    text[len] = '\0';
    *len_out = len;
    *rc = CR_OK;
    return text;
}
