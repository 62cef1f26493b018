/* JSON values the report writers share (json-c): numbers as JSON can hold
 * them. A file of its own, not tools-common.c, because run-report.c is also
 * linked alone into tests/test-replay. */
#ifndef CRADLE_TOOLS_JSON_H
#define CRADLE_TOOLS_JSON_H

#include <json-c/json.h>
#include <stddef.h>

/* A number, or null for what JSON cannot hold (NaN, inf). */
json_object *tools_json_number(double v);
/* An array of @p n numbers as tools_json_number writes them; null when @p v
 * is NULL (a row without that vector). */
json_object *tools_json_numbers(const double *v, size_t n);
/* An array of @p n indices (bodies, episodes). */
json_object *tools_json_indices(const size_t *v, size_t n);

#endif
