/* Shared YAML reading (libfyaml): text checks, node lines, typed fields, one-line errors. */
#ifndef CRADLE_YAML_PRIV_H
#define CRADLE_YAML_PRIV_H

#include <libfyaml.h>
#include <stddef.h>

/* A command-line override of one field (src/model/override.c): an error in the field
 * at `path` ("balls[1].mass", the form messages use) or below it names `arg`
 * ("--set balls.1.mass=-1") instead of a file and line. */
typedef struct {
    const char *path;
    const char *arg;
} cr_yaml_set;

/* A reader's context: file name for messages, the message buffer, the first error,
 * and the overrides applied to the document (none for a plain file). */
typedef struct {
    const char *file;
    char *msg;
    size_t msglen;
    int rc;
    const cr_yaml_set *sets;
    size_t nsets;
} cr_yaml_ctx;

/*
 * Checks raw text before libfyaml: UTF-8, printable, not empty or comments only,
 * one document, only %YAML and %TAG directives. CR_OK, or CR_ERR_SYNTAX with
 * "file:line[:col]: reason". cr_yaml_parse calls it first.
 */
int cr_yaml_check_text(cr_yaml_ctx *ps, const char *text, size_t len);
/* The text of a scalar node, NULL for anything else and for single-quoted text with
 * '' escapes or folded lines, whose text libfyaml 0.7.12 leaks when asked (use this,
 * not fy_node_get_scalar0, for anything read from a user's file). */
const char *cr_yaml_text(struct fy_node *n);
/* 1-based line of a node (of its first key for a mapping), 0 when unknown (an empty list). */
int cr_yaml_line(struct fy_node *n);
/* Line of `key` in `map`: its value's, else the key's own; 0 when absent. */
int cr_yaml_key_line(struct fy_node *map, const char *key);
/* Records "file:line: field: reason" (the first error only) and returns CR_ERR_MODEL.
 * The whole message is escaped (control characters, non-UTF-8 bytes): one line always. */
int cr_yaml_fail(cr_yaml_ctx *ps, int line, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The "file:line: field" (or "--set ARG: field") that cr_yaml_fail would put
 * before a reason, escaped: for a check made later, away from the document
 * (an engine's refusal of output.interval). */
void cr_yaml_where(const cr_yaml_ctx *ps, int line, const char *field, char *dst, size_t dlen);
/* A user's value made fit for a message: escaped, cut to ~60 characters. */
void cr_yaml_echo(char *dst, size_t dlen, const char *value);
/* "where.key" (just "key" when where is empty): the full path of a field in messages. */
void cr_yaml_path(char *dst, size_t dlen, const char *where, const char *key);
/* The candidate (NULL-terminated list) a typo most likely meant, or NULL: case-blind
 * edit distance with swaps, at most 1 edit for words up to 4 letters, 2 up to 8, 3 beyond. */
const char *cr_yaml_closest(const char *word, const char *const *candidates);
/* Rejects keys not in the NULL-terminated `allowed`, with "did you mean" or the list. */
int cr_yaml_check_keys(cr_yaml_ctx *ps, struct fy_node *map, const char *where,
                       const char *const *allowed);
/* The value of `key` in a mapping; NULL when absent or when `map` is not a mapping. */
struct fy_node *cr_yaml_child(struct fy_node *map, const char *key);
int cr_yaml_need_map(cr_yaml_ctx *ps, struct fy_node *n, int line, const char *field);
/* A number field "where.key"; `required` makes a missing key an error; "auto" gives 0
 * when allowed. */
int cr_yaml_number(cr_yaml_ctx *ps, struct fy_node *map, int map_line, const char *where,
                   const char *key, int required, int allow_auto, double *out);
/* A whole number in [minimum, maximum]; the message names both bounds. */
int cr_yaml_count_in(cr_yaml_ctx *ps, struct fy_node *map, int map_line, const char *where,
                     const char *key, int required, long minimum, long maximum, long *out);
/* A whole number in [minimum, 10⁸] (cr_yaml_count_in with the old ceiling). */
int cr_yaml_count(cr_yaml_ctx *ps, struct fy_node *map, int map_line, const char *where,
                  const char *key, int required, long minimum, long *out);
int cr_yaml_positive(cr_yaml_ctx *ps, struct fy_node *map, const char *where, const char *key,
                     double v);
/* A list of numbers (a scalar counts as a list of one): up to `max` into out, count in *n.
 * Items are named field[i] in messages. */
int cr_yaml_numbers(cr_yaml_ctx *ps, struct fy_node *node, const char *field, double *out,
                    size_t max, size_t *n);
/* Records the first libfyaml error of `diag` as "file:line:col: YAML syntax error: ...". */
int cr_yaml_syntax_error(cr_yaml_ctx *ps, struct fy_diag *diag);
/* Checks the text (cr_yaml_check_text) and parses it; NULL with the message recorded. */
struct fy_document *cr_yaml_parse(cr_yaml_ctx *ps, const char *text, size_t len);
/* The model in an already parsed document (modelfile.c): what cr_modelfile_parse does
 * after libfyaml; errors recorded in @p ps. @return CR_OK and the model in *out. */
struct cr_model;
int cr_modelfile_parse_doc(cr_yaml_ctx *ps, struct fy_document *doc, struct cr_model **out);
/* Reads a whole file into a NUL-terminated buffer (free() it); NULL with a message on error. */
char *cr_yaml_read_file(const char *path, size_t *len, char *msg, size_t msglen, int *rc);

#endif
