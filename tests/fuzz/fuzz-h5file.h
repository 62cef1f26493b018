/*
 * Shared by the libFuzzer targets of the HDF5 readers: the bytes go to a
 * file (HDF5 opens paths) in /dev/shm, or TMPDIR, named per process; and the
 * readers' promise on a refusal: one line, naming that file.
 */
#ifndef CRADLE_FUZZ_H5FILE_H
#define CRADLE_FUZZ_H5FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *fuzz_h5_path(const uint8_t *data, size_t size)
{
    static char path[512];
    if (!path[0]) {
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/cradle-fuzz-%ld.h5", dir ? dir : "/tmp", (long)getpid());
    }
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort(); /* the fuzzer's own failure, not the reader's */
    return path;
}

/* A refusal: one line that starts with the file's name. */
static void fuzz_one_line(const char *msg, const char *path)
{
    if (strncmp(msg, path, strlen(path)) != 0 || strchr(msg, '\n') || !msg[strlen(path)])
        abort();
}

#endif
