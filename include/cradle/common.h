/**
 * @file common.h
 * @brief Export macro, error codes and small shared definitions of libcradle.
 */
#ifndef CRADLE_COMMON_H
#define CRADLE_COMMON_H

#include <stddef.h>

#if defined(CR_BUILDING_LIBRARY) && defined(__GNUC__)
#define CR_EXPORT __attribute__((visibility("default")))
#else
#define CR_EXPORT
#endif

/**
 * Every error code of the library, defined once (SUNDIALS v7 style) so that
 * the enum and cr_strerror() cannot drift apart.
 */
#define CR_ERROR_LIST(X)                                                                           \
    X(CR_OK, 0, "success")                                                                         \
    X(CR_ERR_NOMEM, -1, "out of memory")                                                           \
    X(CR_ERR_INVALID, -2, "invalid argument")                                                      \
    X(CR_ERR_IO, -3, "file input/output error")                                                    \
    X(CR_ERR_SYNTAX, -4, "model file syntax error")                                                \
    X(CR_ERR_MODEL, -5, "invalid model")                                                           \
    X(CR_ERR_SOLVER, -6, "integrator failure")                                                     \
    X(CR_ERR_HDF5, -7, "HDF5 error")                                                               \
    X(CR_ERR_INTERRUPTED, -8, "run interrupted")                                                   \
    X(CR_ERR_INFEASIBLE, -9, "no admissible solution")                                             \
    X(CR_ERR_NOT_CONVERGED, -10, "iteration did not converge")                                     \
    X(CR_ERR_DOMAIN, -11, "outside the table's domain")

/** Error codes: CR_OK = 0, failures negative. */
typedef enum {
#define CR_X_ENUM(name, value, text) name = value,
    CR_ERROR_LIST(CR_X_ENUM)
#undef CR_X_ENUM
} cr_status;

/** @return a static, human readable text for an error code. */
CR_EXPORT const char *cr_strerror(int code);

/**
 * Reads a whole file into a new NUL-terminated buffer (free() it); its length in
 * @p len. @return NULL with "path: reason" in @p msg (rc in @p rc if not NULL).
 */
CR_EXPORT char *cr_file_read(const char *path, size_t *len, char *msg, size_t msglen, int *rc);

/** @return the library version string, e.g. "0.1.0". */
CR_EXPORT const char *cr_version(void);

#endif
