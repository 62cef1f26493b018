/**
 * @file lawcase.h
 * @brief YAML impact cases for the rigid laws (format in docs/law-case-format.md):
 * a configuration (chain, discs, general system or rigid bodies) and the law
 * parameters, read with file:line:field errors like model files.
 */
#ifndef CRADLE_LAWCASE_H
#define CRADLE_LAWCASE_H

#include <stdio.h>

#include "cradle/common.h"
#include "cradle/laws.h"

typedef struct cr_lawcase cr_lawcase;

/** Parses a case; @p filename is used in messages only. */
CR_EXPORT int cr_lawcase_parse(const char *text, size_t len, const char *filename, cr_lawcase **out,
                               char *msg, size_t msglen);
/** Reads and parses @p path. */
CR_EXPORT int cr_lawcase_load(const char *path, cr_lawcase **out, char *msg, size_t msglen);
CR_EXPORT void cr_lawcase_destroy(cr_lawcase *c);
/** The configuration (owned by the case). */
CR_EXPORT cr_impact *cr_lawcase_impact(const cr_lawcase *c);
/** The law parameters (their arrays are owned by the case). */
CR_EXPORT const cr_law_params *cr_lawcase_params(const cr_lawcase *c);
/** "chain", "discs", "system" or "rigid". */
CR_EXPORT const char *cr_lawcase_kind(const cr_lawcase *c);

/**
 * Writes @p imp and @p params as a law case (the `system:` form) that
 * cr_lawcase_load reads back: how an episode measured on a compliant run is
 * handed to `cradle law`. @p comment (may be NULL) becomes a leading comment.
 */
CR_EXPORT int cr_lawcase_write(FILE *out, cr_impact *imp, const cr_law_params *params,
                               const char *comment);

#endif
