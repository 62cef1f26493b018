#include "tools-json.h"

#include <math.h>

json_object *tools_json_number(double v)
{
    return isfinite(v) ? json_object_new_double(v) : NULL;
}

json_object *tools_json_numbers(const double *v, size_t n)
{
    if (!v)
        return NULL;
    json_object *a = json_object_new_array_ext((int)n);
    for (size_t i = 0; a && i < n; i++)
        json_object_array_add(a, tools_json_number(v[i]));
    return a;
}

json_object *tools_json_indices(const size_t *v, size_t n)
{
    json_object *a = json_object_new_array_ext((int)n);
    for (size_t i = 0; a && i < n; i++)
        json_object_array_add(a, json_object_new_uint64(v[i]));
    return a;
}
