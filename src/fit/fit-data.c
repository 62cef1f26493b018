/*
 * Data files of `cradle fit` (docs/fit.md, "Data files"): CSV, one row per
 * observation with its uncertainty, columns named by a header. Every error is
 * one line naming the file, the line and the column.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit/fit-priv.h"

static const char *const observable_names[CR_FIT_OBSERVABLE_COUNT] = {
    "velocity_after", "contact_duration", "e_cm", "opening_span", "peak_force", "swing_extreme"};

const char *cr_fit_observable_name(int kind)
{
    return kind >= 0 && kind < CR_FIT_OBSERVABLE_COUNT ? observable_names[kind] : NULL;
}

/* The observables that name a body or contact in the index column. */
static int takes_index(cr_fit_observable k)
{
    return k == CR_FIT_VELOCITY_AFTER || k == CR_FIT_CONTACT_DURATION || k == CR_FIT_PEAK_FORCE ||
           k == CR_FIT_SWING_EXTREME;
}

enum { COL_OBSERVABLE, COL_TIME, COL_INDEX, COL_VALUE, COL_SIGMA, COL_COUNT };
static const char *const column_names[COL_COUNT] = {"observable", "time", "index", "value",
                                                    "sigma"};

#define MAX_FIELDS 32

/* The line's fields, split at commas and trimmed, in place. */
static size_t split(char *line, char **field)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        char *end = strchr(p, ',');
        if (end)
            *end = '\0';
        while (isspace((unsigned char)*p))
            p++;
        char *q = p + strlen(p);
        while (q > p && isspace((unsigned char)q[-1]))
            *--q = '\0';
        if (n < MAX_FIELDS)
            field[n] = p;
        n++;
        if (!end)
            return n;
        p = end + 1;
    }
}

/* A user's text fit for a message: printable ASCII, cut. */
static void echo(char *dst, size_t dlen, const char *s)
{
    size_t j = 0;
    for (; *s && j + 5 < dlen && j < 40; s++)
        j += (size_t)snprintf(dst + j, dlen - j, isprint((unsigned char)*s) ? "%c" : "\\x%02x",
                              (unsigned char)*s);
    dst[j] = '\0';
}

static int number(const char *s, double *v)
{
    char *end;
    if (!*s)
        return 0;
    *v = strtod(s, &end);
    return *end == '\0';
}

typedef struct {
    const char *file;
    size_t line;
    int col[COL_COUNT]; /* 0-based field of each column, −1 when absent */
    char *msg;
    size_t msglen;
} csv_ctx;

static int fail(csv_ctx *c, int column, const char *fmt, const char *a, const char *b)
{
    char what[256];
    snprintf(what, sizeof what, fmt, a, b);
    cr_set_msg(c->msg, c->msglen, "%s:%zu:%d: %s", c->file, c->line, column + 1, what);
    return CR_ERR_MODEL;
}

static int read_header(csv_ctx *c, char *line, int need_values)
{
    char *field[MAX_FIELDS], e[64];
    size_t n = split(line, field);
    if (n > MAX_FIELDS)
        n = MAX_FIELDS;
    for (int k = 0; k < COL_COUNT; k++)
        c->col[k] = -1;
    for (size_t f = 0; f < n; f++) {
        int k = 0;
        while (k < COL_COUNT && strcmp(field[f], column_names[k]) != 0)
            k++;
        echo(e, sizeof e, field[f]);
        if (k == COL_COUNT)
            return fail(c, (int)f,
                        "unknown column '%s' in the header (observable, time, index, value, "
                        "sigma)%s",
                        e, "");
        if (c->col[k] >= 0)
            return fail(c, (int)f, "column '%s' named twice%s", e, "");
        c->col[k] = (int)f;
    }
    for (int k = 0; k < COL_COUNT; k++)
        if (c->col[k] < 0 && (k < COL_VALUE || need_values))
            return fail(c, 0, "the header has no column '%s'%s", column_names[k], "");
    return CR_OK;
}

static int read_kind(csv_ctx *c, const char *s, cr_fit_observation *o)
{
    char e[64];
    for (int k = 0; k < CR_FIT_OBSERVABLE_COUNT; k++)
        if (strcmp(s, observable_names[k]) == 0) {
            o->kind = (cr_fit_observable)k;
            return CR_OK;
        }
    echo(e, sizeof e, s);
    return fail(c, c->col[COL_OBSERVABLE],
                "observable: unknown '%s' (velocity_after, contact_duration, e_cm, "
                "opening_span, peak_force, swing_extreme)%s",
                e, "");
}

static int read_time_index(csv_ctx *c, char **field, cr_fit_observation *o)
{
    char e[64];
    const char *ts = field[c->col[COL_TIME]], *is = field[c->col[COL_INDEX]];
    o->time = NAN;
    echo(e, sizeof e, ts);
    if (*ts && (!number(ts, &o->time) || !isfinite(o->time) || o->time < 0))
        return fail(c, c->col[COL_TIME], "time: must be a time >= 0 in s (got '%s')%s", e, "");
    if (!*ts && o->kind != CR_FIT_OPENING_SPAN)
        return fail(c, c->col[COL_TIME], "time: %s needs the time of its collision%s",
                    observable_names[o->kind], "");
    o->index = -1;
    echo(e, sizeof e, is);
    if (!takes_index(o->kind)) {
        if (*is)
            return fail(c, c->col[COL_INDEX], "index: %s takes no index (got '%s')",
                        observable_names[o->kind], e);
        return CR_OK;
    }
    char *end;
    long v = strtol(is, &end, 10);
    if (!*is || *end || v < 0 || v > 100000000)
        return fail(
            c, c->col[COL_INDEX], "index: %s needs a %s number >= 0", observable_names[o->kind],
            o->kind == CR_FIT_VELOCITY_AFTER || o->kind == CR_FIT_SWING_EXTREME ? "body"
                                                                                : "contact");
    o->index = v;
    return CR_OK;
}

static int read_value_sigma(csv_ctx *c, char **field, int need_values, cr_fit_observation *o)
{
    char e[64];
    o->value = o->sigma = NAN;
    const char *vs = c->col[COL_VALUE] >= 0 ? field[c->col[COL_VALUE]] : "";
    const char *ss = c->col[COL_SIGMA] >= 0 ? field[c->col[COL_SIGMA]] : "";
    echo(e, sizeof e, vs);
    if ((need_values || *vs) && (!number(vs, &o->value) || !isfinite(o->value)))
        return fail(c, c->col[COL_VALUE], "value: must be a finite number (got '%s')%s", e, "");
    echo(e, sizeof e, ss);
    if ((need_values || *ss) && (!number(ss, &o->sigma) || !isfinite(o->sigma) || !(o->sigma > 0)))
        return fail(c, c->col[COL_SIGMA],
                    "sigma: must be a positive finite uncertainty (got '%s')%s", e, "");
    return CR_OK;
}

static int read_row(csv_ctx *c, char *line, int need_values, cr_fit_observation *o)
{
    char *field[MAX_FIELDS];
    size_t n = split(line, field), width = 0;
    for (int k = 0; k < COL_COUNT; k++)
        if (c->col[k] + 1 > (int)width)
            width = (size_t)c->col[k] + 1;
    if (n != width) {
        cr_set_msg(c->msg, c->msglen, "%s:%zu: %zu fields, the header has %zu", c->file, c->line, n,
                   width);
        return CR_ERR_MODEL;
    }
    o->line = c->line;
    o->time_column = c->col[COL_TIME] + 1;
    o->index_column = c->col[COL_INDEX] + 1;
    int rc = read_kind(c, field[c->col[COL_OBSERVABLE]], o);
    if (rc == CR_OK)
        rc = read_time_index(c, field, o);
    if (rc == CR_OK)
        rc = read_value_sigma(c, field, need_values, o);
    return rc;
}

/* Blank lines and lines starting with '#' carry nothing. */
static int blank(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return *s == '\0' || *s == '#';
}

static int parse_lines(csv_ctx *c, char *text, int need_values, cr_fit_observation *out, size_t *n)
{
    int header = 0, rc = CR_OK;
    for (char *line = text; line && rc == CR_OK; c->line++) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        size_t l = strlen(line);
        if (l && line[l - 1] == '\r')
            line[l - 1] = '\0';
        if (!blank(line)) {
            if (!header) {
                rc = read_header(c, line, need_values);
                header = 1;
            } else if (*n == CR_FIT_MAX_ROWS) {
                cr_set_msg(c->msg, c->msglen, "%s:%zu: more than %d rows", c->file, c->line,
                           CR_FIT_MAX_ROWS);
                rc = CR_ERR_MODEL;
            } else
                rc = read_row(c, line, need_values, &out[(*n)++]);
        }
        line = next;
    }
    if (rc == CR_OK && *n == 0) {
        cr_set_msg(c->msg, c->msglen, "%s: no observations (a header line, then one row each)",
                   c->file);
        rc = CR_ERR_MODEL;
    }
    return rc;
}

int cr_fit_data_parse(const char *text, size_t len, const char *filename, int need_values,
                      cr_fit_observation **out, size_t *n, char *msg, size_t msglen)
{
    if (!text || !out || !n)
        return CR_ERR_INVALID;
    *out = NULL;
    *n = 0;
    const char *file = filename ? filename : "(data)";
    if (memchr(text, '\0', len)) {
        cr_set_msg(msg, msglen, "%s: NUL byte: not a text file", file);
        return CR_ERR_SYNTAX;
    }
    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    char *copy = malloc(len + 1);
    cr_fit_observation *obs =
        calloc(lines < CR_FIT_MAX_ROWS ? lines : CR_FIT_MAX_ROWS, sizeof *obs);
    if (!copy || !obs) {
        free(copy);
        free(obs);
        return CR_ERR_NOMEM;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    csv_ctx c = {file, 1, {0}, msg, msglen};
    int rc = parse_lines(&c, copy, need_values, obs, n);
    free(copy);
    if (rc != CR_OK) {
        free(obs);
        *n = 0;
        return rc;
    }
    *out = obs;
    return CR_OK;
}
