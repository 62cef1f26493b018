/* Shared YAML reading (libfyaml): node lines, typed fields, one-line errors. */
#ifndef CRADLE_YAML_PRIV_H
#define CRADLE_YAML_PRIV_H

#include <libfyaml.h>
#include <stddef.h>

/* A reader's context: file name for messages, the message buffer, the first error. */
typedef struct {
    const char *file;
    char *msg;
    size_t msglen;
    int rc;
} cr_yaml_ctx;

/* 1-based line of a node (of its first key for a mapping), 0 when unknown. */
int cr_yaml_line(struct fy_node *n);
/* Records "file:line: field: reason" (the first error only) and returns CR_ERR_MODEL. */
int cr_yaml_fail(cr_yaml_ctx *ps, int line, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Rejects keys not in the NULL-terminated `allowed`. */
int cr_yaml_check_keys(cr_yaml_ctx *ps, struct fy_node *map, const char *where,
                       const char *const *allowed);
struct fy_node *cr_yaml_child(struct fy_node *map, const char *key);
int cr_yaml_need_map(cr_yaml_ctx *ps, struct fy_node *n, int line, const char *field);
/* A number field; `required` makes a missing key an error; "auto" gives 0 when allowed. */
int cr_yaml_number(cr_yaml_ctx *ps, struct fy_node *map, int map_line, const char *where,
                   const char *key, int required, int allow_auto, double *out);
/* A whole number >= minimum. */
int cr_yaml_count(cr_yaml_ctx *ps, struct fy_node *map, int map_line, const char *where,
                  const char *key, int required, long minimum, long *out);
int cr_yaml_positive(cr_yaml_ctx *ps, struct fy_node *map, const char *where, const char *key,
                     double v);
/* A list of numbers (a scalar counts as a list of one): up to `max` into out, count in *n. */
int cr_yaml_numbers(cr_yaml_ctx *ps, struct fy_node *node, const char *field, double *out,
                    size_t max, size_t *n);
/* Records the first libfyaml error of `diag` as "file:line:col: YAML syntax error: ...". */
int cr_yaml_syntax_error(cr_yaml_ctx *ps, struct fy_diag *diag);
/* Parses text; on a syntax error returns NULL with the message recorded. */
struct fy_document *cr_yaml_parse(cr_yaml_ctx *ps, const char *text, size_t len);
/* Reads a whole file into a NUL-terminated buffer (free() it); NULL with a message on error. */
char *cr_yaml_read_file(const char *path, size_t *len, char *msg, size_t msglen, int *rc);

#endif
