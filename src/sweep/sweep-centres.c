/* The check sweep of a grid (cr_sweep_centres_text, docs/tables.md): the
 * centre of every cell, where multilinear interpolation errs most for a
 * smooth function, as a sweep file of its own with the base model inline,
 * so `cradle table make --check auto` runs it like any sweep. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/sweep-priv.h"

/* A YAML single-quoted scalar. */
static void quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* A value as set: a flow collection or a plain word as it is, else quoted. */
static void value(FILE *f, const char *v)
{
    int plain = v[0] != '\0';
    for (const char *c = v; plain && *c; c++)
        plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                strchr("_.+-", *c);
    if (plain || v[0] == '[' || v[0] == '{')
        fputs(v, f);
    else
        quoted(f, v);
}

/* Positions of axis @p a sorted by its first input's values (a zip keeps its
 * inputs' values together). */
static void axis_order(const cr_sweep *s, size_t first, size_t n, size_t *order)
{
    const double *v = s->in[first].numbers;
    for (size_t k = 0; k < n; k++)
        order[k] = k;
    for (size_t k = 1; k < n; k++) /* insertion sort: axes are short */
        for (size_t j = k; j > 0 && v[order[j]] < v[order[j - 1]]; j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
}

/* Input @p j's centres, the rule of the table's interpolation (table.c): in
 * log x when its sorted values are positive and geometric (3 or more). */
static void centres(const cr_sweep *s, size_t j, const size_t *order, size_t n, FILE *f)
{
    const double *v = s->in[j].numbers;
    int log_x = n >= 3 && v[order[0]] > 0.0;
    for (size_t k = 2; log_x && k < n; k++)
        log_x = fabs((v[order[k]] / v[order[k - 1]]) / (v[order[1]] / v[order[0]]) - 1.0) <= 1e-9;
    fputs("values: [", f);
    for (size_t k = 0; k + 1 < n || (n == 1 && k == 0); k++) {
        double lo = v[order[k]], c = n == 1 ? lo : v[order[k + 1]];
        c = n == 1 ? lo : log_x ? sqrt(lo * c) : 0.5 * (lo + c);
        fprintf(f, "%s%.17g", k ? ", " : "", c);
    }
    fputs("]", f);
}

static int write_axes(const cr_sweep *s, FILE *f, char *msg, size_t msglen)
{
    size_t *order = malloc((s->points + 1) * sizeof(size_t));
    if (!order)
        return CR_ERR_NOMEM;
    fputs("axes:\n", f);
    for (size_t a = 0; a < s->naxes; a++) {
        size_t first = SIZE_MAX, count = 0;
        for (size_t j = 0; j < s->nin; j++)
            if (s->in[j].axis == a) {
                first = first == SIZE_MAX ? j : first;
                count++;
                for (size_t k = 0; k < s->axis_len[a]; k++)
                    if (!isfinite(s->in[j].numbers[k])) {
                        cr_set_msg(msg, msglen,
                                   "%s: input %s: '%s' is not a number: a cell has no centre",
                                   s->name, s->in[j].name, s->in[j].values[k]);
                        free(order);
                        return CR_ERR_INVALID;
                    }
            }
        axis_order(s, first, s->axis_len[a], order);
        fputs(count > 1 ? "  - zip:\n" : "", f);
        for (size_t j = first; j < s->nin; j++) {
            if (s->in[j].axis != a)
                continue;
            fputs(count > 1 ? "      - {field: " : "  - {field: ", f);
            quoted(f, s->in[j].field);
            fputs(", key: ", f);
            quoted(f, s->in[j].name);
            fputs(", ", f);
            centres(s, j, order, s->axis_len[a], f);
            fputs("}\n", f);
        }
    }
    free(order);
    return CR_OK;
}

int cr_sweep_centres_text(const cr_sweep *s, char **text, char *msg, size_t msglen)
{
    if (!s || !text)
        return CR_ERR_INVALID;
    *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(text, &len);
    if (!f)
        return CR_ERR_NOMEM;
    fputs("# The check points of a grid: the centre of every cell (geometric on an axis\n"
          "# interpolated in log x), run directly; written by cradle table make --check\n"
          "# auto (docs/tables.md).\nname: ",
          f);
    char name[512];
    snprintf(name, sizeof name, "%s-check", s->name);
    quoted(f, name);
    fputs("\nmodel:\n  ", f);
    for (const char *c = s->model_text; *c; c++) {
        fputc(*c, f);
        if (*c == '\n' && c[1])
            fputs("  ", f);
    }
    fputs(s->nsets ? "\nset:\n" : "\n", f);
    for (size_t k = 0; k < s->nsets; k++) {
        const char *eq = strchr(s->sets[k], '=');
        char field[512];
        snprintf(field, sizeof field, "%.*s", (int)(eq - s->sets[k]), s->sets[k]);
        fputs("  ", f);
        quoted(f, field);
        fputs(": ", f);
        value(f, eq + 1);
        fputc('\n', f);
    }
    int rc = write_axes(s, f, msg, msglen);
    if (fclose(f) != 0 && rc == CR_OK)
        rc = CR_ERR_NOMEM;
    if (rc != CR_OK) {
        free(*text);
        *text = NULL;
    }
    return rc;
}
