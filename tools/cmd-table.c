/* cradle table: reference tables of data/ (docs/tables.md): look a
 * configuration up, describe a table, make one from two finished sweeps. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd-sweep.h"
#include "cradle/cradle.h"
#include "cradle/sweep.h"
#include "table-declare.h"
#include "tools-common.h"

#define MAX_SELECT 64

void usage_table(FILE *out)
{
    fputs("usage: cradle table lookup TABLE KEY=VALUE ... [--column NAME]... [--laws] [--json]\n"
          "       cradle table info TABLE\n"
          "       cradle table make GRID.h5 [--check CHECK.h5|auto [-j N] [-q]] -o TABLE.h5\n"
          "                         [--csv FILE] [--configuration chain] [--attr NAME=VALUE]...\n"
          "\n"
          "lookup interpolates a reference table (data/README.md) at the configuration\n"
          "given by one KEY=VALUE per axis (an axis of one value may be left out) and\n"
          "prints each column with its interpolation error bound (0 at a grid point).\n"
          "Default columns: kappa, alpha[c], e_N[c], e_P[c], and where they hold a\n"
          "number e_cm, v_cm_before, v_cm_after, v_final[i]. A value outside an axis'\n"
          "range is refused (exit 5), never extrapolated. --laws: every rigid law's\n"
          "error (calibrated and predictive, first episode), smallest first: the law map.\n"
          "info prints the axes, the columns with their bounds and the provenance.\n"
          "make turns a finished `cradle sweep` output into a table: provenance\n"
          "attributes and, from CHECK.h5 (a sweep over off-grid points with the same\n"
          "keys), each column's bound (docs/tables.md); --check auto writes that sweep\n"
          "(the centre of every grid cell) as TABLE.check.yaml and runs it into\n"
          "TABLE.check.h5 as `cradle sweep` would (-j, resume, progress, Ctrl-C).\n"
          "--configuration chain declares\n"
          "the axes as impact-configuration quantities of a chain (mass and stiffness\n"
          "ratios, restitutions at the striker's speed, gaps over d*), checked against\n"
          "every point's model: `run --rigid energetic --table` and `compare --table`\n"
          "then take it for any chain impact of that many bodies inside its axes.\n",
          out);
}

static int open_table(const char *path, cr_table **t)
{
    char msg[512] = "";
    if (cr_table_open(path, t, msg, sizeof msg) != CR_OK) {
        tools_error("%s", msg[0] ? msg : path);
        return EXIT_INPUT;
    }
    return 0;
}

/* KEY=VALUE arguments into x (one per axis); an axis of one value defaults. */
static int parse_keys(cr_table *t, char **keys, int nkeys, double *x)
{
    size_t na = cr_table_axis_count(t);
    int given[64] = {0}; /* at most 16 axes (TB_MAX_AXES) */
    for (size_t a = 0; a < na; a++)
        x[a] = cr_table_axis_length(t, a) == 1 ? cr_table_axis_value(t, a, 0) : NAN;
    for (int i = 0; i < nkeys; i++) {
        char *eq = strchr(keys[i], '=');
        if (!eq) {
            tools_error("table lookup: '%s': give KEY=VALUE", keys[i]);
            return EXIT_USAGE;
        }
        *eq = '\0';
        long a = cr_table_axis_index(t, keys[i]);
        char *end;
        double v = strtod(eq + 1, &end);
        if (a < 0) {
            tools_error("table lookup: %s: no axis '%s' (axes: see cradle table info)",
                        cr_table_path(t), keys[i]);
            return EXIT_INPUT;
        }
        if (end == eq + 1 || *end) {
            tools_error("table lookup: %s=%s: not a number", keys[i], eq + 1);
            return EXIT_INPUT;
        }
        /* a key given twice is a mistake, whichever value was meant */
        if (a < 64 && given[a]++) {
            tools_error("table lookup: %s given twice (one KEY=VALUE per axis)", keys[i]);
            return EXIT_USAGE;
        }
        x[a] = v;
    }
    for (size_t a = 0; a < na; a++)
        if (isnan(x[a])) {
            tools_error("table lookup: %s: give %s=VALUE (in [%g, %g])", cr_table_path(t),
                        cr_table_axis_name(t, a), cr_table_axis_value(t, a, 0),
                        cr_table_axis_value(t, a, cr_table_axis_length(t, a) - 1));
            return EXIT_INPUT;
        }
    return 0;
}

static int default_column(const char *name)
{
    return strcmp(name, "kappa") == 0 || strncmp(name, "alpha[", 6) == 0 ||
           strncmp(name, "e_N[", 4) == 0 || strncmp(name, "e_P[", 4) == 0;
}

/* Shown by default too where they hold a number: the collision's centre-of-mass
 * columns and the final velocities (a cradle of N balls fills N of them). */
static int extra_column(const char *name)
{
    return strcmp(name, "e_cm") == 0 || strncmp(name, "v_cm_", 5) == 0 ||
           strncmp(name, "v_final[", 8) == 0;
}

static void json_number(double v)
{
    if (isfinite(v))
        printf("%.17g", v);
    else
        printf("null");
}

/* A JSON string: quotes, backslashes and control bytes escaped. */
static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

/* JSON: null for a NaN value (a contact at rest) or a bound not estimated. */
static void print_value(const char *name, int width, double v, double b, int json, int first)
{
    if (json) {
        printf("%s\n    ", first ? "" : ",");
        json_string(name);
        printf(": {\"value\": ");
        json_number(v);
        printf(", \"bound\": ");
        json_number(b);
        printf("}");
    } else if (isfinite(b))
        printf("  %-*s %.12g  +- %.3g\n", width, name, v, b);
    else
        printf("  %-*s %.12g  (bound not estimated)\n", width, name, v);
}

/* --laws: every law's error in the first episode (error.LAW.MODE), the law map. */
static int wanted(const char *name, const char **cols, int ncols, int laws)
{
    if (laws)
        return strncmp(name, "error.", 6) == 0;
    int want = ncols == 0 ? default_column(name) || extra_column(name) : 0;
    for (int c = 0; c < ncols && !want; c++)
        want = strcmp(cols[c], name) == 0;
    return want;
}

/* Every value is looked up before anything is printed: an error leaves stdout
 * empty. */
/* Column order for printing: as stored, or with --laws the smallest error
 * first (NaN, a law without an answer, last). */
static void print_order(const double *v, size_t *order, size_t n, int laws)
{
    for (size_t i = 1; laws && i < n; i++)
        for (size_t k = i; k > 0; k--) {
            double a = v[2 * order[k - 1]], b = v[2 * order[k]];
            if (!(isnan(a) ? !isnan(b) : b < a))
                break;
            size_t tmp = order[k];
            order[k] = order[k - 1];
            order[k - 1] = tmp;
        }
}

static int lookup(cr_table *t, char **keys, int nkeys, const char **cols, int ncols, int json,
                  int laws)
{
    double x[64];
    size_t ncol = cr_table_column_count(t);
    if (cr_table_axis_count(t) > 64)
        return EXIT_INPUT;
    int rc = parse_keys(t, keys, nkeys, x);
    if (rc)
        return rc;
    for (int c = 0; c < ncols; c++)
        if (cr_table_column_index(t, cols[c]) < 0) {
            tools_error("table lookup: %s: no column '%s'", cr_table_path(t), cols[c]);
            return EXIT_INPUT;
        }
    double *v = calloc(2 * ncol + 1, sizeof(double));
    size_t *order = calloc(ncol + 1, sizeof(size_t)), n = 0;
    if (!v || !order) {
        free(v);
        free(order);
        return EXIT_RUN;
    }
    for (size_t j = 0; j < ncol; j++) {
        if (!wanted(cr_table_column_name(t, j), cols, ncols, laws))
            continue;
        order[n++] = j;
        int e = cr_table_lookup(t, x, j, &v[2 * j], &v[2 * j + 1]);
        if (e != CR_OK) {
            tools_error("%s", cr_table_last_error(t));
            free(v);
            free(order);
            return e == CR_ERR_DOMAIN ? EXIT_DOMAIN : EXIT_INPUT;
        }
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (ncols > 0 || laws || !extra_column(cr_table_column_name(t, order[i])) ||
            !isnan(v[2 * order[i]]))
            order[kept++] = order[i];
    n = kept;
    print_order(v, order, n, laws);
    if (json) {
        printf("{\n  \"table\": ");
        json_string(cr_table_path(t));
        printf(",\n  \"values\": {");
    } else {
        printf("%s at", cr_table_path(t));
        for (size_t a = 0; a < cr_table_axis_count(t); a++)
            printf(" %s=%.9g", cr_table_axis_name(t, a), x[a]);
        printf("\n");
    }
    int width = 12;
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(cr_table_column_name(t, order[i])) > width)
            width = (int)strlen(cr_table_column_name(t, order[i]));
    for (size_t i = 0; i < n; i++)
        print_value(cr_table_column_name(t, order[i]), width, v[2 * order[i]], v[2 * order[i] + 1],
                    json, i == 0);
    if (json)
        printf("\n  }\n}\n");
    free(v);
    free(order);
    return 0;
}

static void info(cr_table *t)
{
    printf("%s: %s\n", cr_table_path(t), cr_table_attr(t, "name"));
    static const char *const prov[] = {
        "description", "cradle_version", "git_revision",  "base_model",
        "tolerances",  "date",           "configuration", NULL};
    for (const char *const *p = prov; *p; p++)
        if (cr_table_attr(t, *p)[0])
            printf("  %s: %s\n", *p, cr_table_attr(t, *p));
    printf("  axes:\n");
    for (size_t a = 0; a < cr_table_axis_count(t); a++) {
        size_t n = cr_table_axis_length(t, a);
        const char *q = cr_table_axis_quantity(t, a);
        printf("    %-12s %-28s %3zu values in [%.9g, %.9g]%s%s%s\n", cr_table_axis_name(t, a),
               cr_table_axis_field(t, a), n, cr_table_axis_value(t, a, 0),
               cr_table_axis_value(t, a, n - 1), cr_table_axis_is_log(t, a) ? " (log)" : "",
               q[0] ? ", quantity " : "", q);
    }
    if (cr_table_fixed_count(t)) {
        printf("  held fixed:");
        for (size_t k = 0; k < cr_table_fixed_count(t); k++)
            printf("%s %s = %.9g", k ? "," : "", cr_table_fixed_name(t, k),
                   cr_table_fixed_value(t, k));
        printf("\n");
    }
    printf("  columns (interpolation bound, check points):\n");
    for (size_t j = 0; j < cr_table_column_count(t); j++) {
        size_t checked;
        double b = cr_table_bound(t, j, &checked);
        const char *name = cr_table_column_name(t, j);
        if (default_column(name) || (extra_column(name) && checked > 0))
            printf("    %-12s %.3g (%zu)\n", cr_table_column_name(t, j), b, checked);
    }
}

/* TABLE.h5 → TABLE.check.yaml (or .h5): beside the table, named after it. */
static char *beside(const char *table, const char *ext)
{
    size_t n = strlen(table);
    if (n > 3 && strcmp(table + n - 3, ".h5") == 0)
        n -= 3;
    char *p = malloc(n + strlen(ext) + 1);
    if (p)
        sprintf(p, "%.*s%s", (int)n, table, ext);
    return p;
}

/* Writes @p text to @p path unless it holds it already (a rerun resumes);
 * another file there is the user's: refused. @return 0 or an exit status. */
static int put_check_sweep(const char *path, const char *text)
{
    size_t len = 0;
    char msg[512];
    int rc;
    char *old = access(path, F_OK) == 0 ? cr_file_read(path, &len, msg, sizeof msg, &rc) : NULL;
    if (old || access(path, F_OK) == 0) {
        int same = old && strcmp(old, text) == 0;
        free(old);
        if (same)
            return 0;
        tools_error("table make --check auto: %s exists and is not this grid's check sweep "
                    "(remove it, or choose another -o)",
                    path);
        return EXIT_INPUT;
    }
    FILE *f = fopen(path, "w");
    int e = !f || fputs(text, f) == EOF;
    if (f && fclose(f) != 0)
        e = 1;
    if (e) {
        tools_error("%s: cannot write the check sweep", path);
        return EXIT_RUN;
    }
    return 0;
}

/* --check auto: the grid's check sweep (cell centres) written beside the
 * table and run as `cradle sweep` runs it (-j, resume, progress, Ctrl-C).
 * @return 0 with its output in @p *check, or an exit status. */
static int auto_check(const char *grid, const char *table, const char *jobs, int quiet,
                      char **check)
{
    char msg[1024], *text = NULL;
    cr_sweep *s = table_grid_sweep(grid, msg, sizeof msg);
    int rc = s ? cr_sweep_centres_text(s, &text, msg, sizeof msg) : CR_ERR_INVALID;
    cr_sweep_destroy(s);
    char *yaml = beside(table, ".check.yaml");
    *check = beside(table, ".check.h5");
    if (rc != CR_OK || !yaml || !*check) {
        tools_error("table make --check auto: %s", rc != CR_OK ? msg : "out of memory");
        free(text);
        free(yaml);
        return rc == CR_ERR_INVALID ? EXIT_INPUT : EXIT_RUN;
    }
    int st = put_check_sweep(yaml, text);
    free(text);
    char *argv[8] = {"sweep", yaml, "-o", *check};
    int argc = 4;
    if (jobs) {
        argv[argc++] = "-j";
        argv[argc++] = (char *)jobs;
    }
    if (quiet)
        argv[argc++] = "-q";
    argv[argc] = NULL;
    if (st == 0) {
        optind = 1; /* cmd_sweep parses with getopt */
        st = cmd_sweep(argc, argv);
    }
    free(yaml);
    return st;
}

/* The declared contact law (law.n, law.m, law.release) unless --attr gave it. */
static void add_law_attrs(const table_decl *d, const char **attrs, int *nattr)
{
    static const char *const names[] = {"law.n", "law.m", "law.release"};
    for (int k = 0; k < 3; k++) {
        int given = 0;
        for (int j = 0; j < *nattr; j += 2)
            given |= strcmp(attrs[j], names[k]) == 0;
        if (!given) {
            attrs[(*nattr)++] = names[k];
            attrs[(*nattr)++] = d->law[k];
        }
    }
    attrs[*nattr] = NULL;
}

static int make(int argc, char **argv)
{
    const char *grid = NULL, *check = NULL, *out = NULL, *csv = NULL, *configuration = NULL;
    const char *jobs = NULL;
    int quiet = 0;
    const char *attrs[2 * MAX_SELECT + 7];
    int nattr = 0;
    for (int i = 1; i < argc; i++) {
        int more = i + 1 < argc;
        if (strcmp(argv[i], "--check") == 0 && more)
            check = argv[++i];
        else if (strcmp(argv[i], "-o") == 0 && more)
            out = argv[++i];
        else if (strcmp(argv[i], "-j") == 0 && more)
            jobs = argv[++i];
        else if (strcmp(argv[i], "-q") == 0)
            quiet = 1;
        else if (strcmp(argv[i], "--csv") == 0 && more)
            csv = argv[++i];
        else if (strcmp(argv[i], "--configuration") == 0 && more) {
            configuration = argv[++i];
            if (strcmp(configuration, "chain") != 0) {
                tools_error("table make: --configuration %s: the configurations are: chain",
                            configuration);
                return EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--attr") == 0 && more && strchr(argv[i + 1], '=') &&
                   nattr < 2 * MAX_SELECT) {
            char *kv = argv[++i];
            *strchr(kv, '=') = '\0';
            attrs[nattr++] = kv;
            attrs[nattr++] = kv + strlen(kv) + 1;
        } else if (argv[i][0] == '-' || grid) {
            tools_error("table make: unexpected argument '%s' (cradle help table)", argv[i]);
            return EXIT_USAGE;
        } else
            grid = argv[i];
    }
    attrs[nattr] = NULL;
    if (!grid || !out) {
        tools_error("table make: give GRID.h5 and -o TABLE.h5");
        return EXIT_USAGE;
    }
    char msg[512] = "";
    const char *files[] = {grid, check, out};
    char *target = NULL; /* -o: a symbolic link stays one, its target is written */
    int lock = -1;
    if (tools_check_output(out, grid, msg, sizeof msg) != 0 ||
        (check && strcmp(out, check) == 0 && snprintf(msg, sizeof msg, "%s: is an input", out)) ||
        (csv && tools_check_csv(csv, files, 3, msg, sizeof msg) != 0) ||
        !(target = tools_output_target(out, msg, sizeof msg)) ||
        (lock = tools_lock_output(target, msg, sizeof msg)) < 0) {
        tools_error("%s", msg);
        free(target);
        return EXIT_INPUT;
    }
    char *made = NULL; /* --check auto: the check sweep's output */
    if (check && strcmp(check, "auto") == 0) {
        int st = auto_check(grid, target, jobs, quiet, &made);
        if (st != 0) {
            tools_unlock_output(lock, target);
            free(target);
            free(made);
            return st;
        }
        check = made;
    }
    table_decl *decl = configuration ? calloc(1, sizeof *decl) : NULL;
    int rc = configuration && !decl ? CR_ERR_NOMEM : CR_OK;
    if (decl && table_declare(grid, decl, msg, sizeof msg) != 0)
        rc = CR_ERR_INVALID;
    if (decl && rc == CR_OK)
        add_law_attrs(decl, attrs, &nattr);
    if (rc == CR_OK)
        rc = cr_table_make_declared(grid, check, target, attrs, decl ? &decl->decl : NULL, msg,
                                    sizeof msg);
    free(decl);
    free(made);
    tools_unlock_output(lock, target);
    free(target);
    if (rc != CR_OK) {
        tools_error("%s", msg);
        return rc == CR_ERR_IO || rc == CR_ERR_NOMEM ? EXIT_RUN : EXIT_INPUT;
    }
    if (csv) {
        cr_sweep_output *o = cr_sweep_output_open(out, msg, sizeof msg);
        FILE *f = o ? fopen(csv, "w") : NULL;
        int e = !f || cr_sweep_output_write_csv(o, f) != CR_OK;
        if (f && fclose(f) != 0)
            e = 1;
        cr_sweep_output_close(o);
        if (e) {
            tools_error("%s: cannot write the CSV twin", csv);
            return EXIT_RUN;
        }
    }
    return 0;
}

int cmd_table(int argc, char **argv)
{
    if (argc < 2) {
        usage_table(stderr);
        return EXIT_USAGE;
    }
    const char *sub = argv[1];
    if (strcmp(sub, "make") == 0)
        return make(argc - 1, argv + 1);
    if (strcmp(sub, "lookup") && strcmp(sub, "info")) {
        tools_error("table: unknown subcommand '%s' (lookup, info, make)", sub);
        return EXIT_USAGE;
    }
    if (argc < 3) {
        tools_error("table %s: name the table: cradle table %s TABLE", sub, sub);
        return EXIT_USAGE;
    }
    char *keys[MAX_SELECT];
    const char *cols[MAX_SELECT];
    int nkeys = 0, ncols = 0, json = 0, laws = 0;
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--laws") == 0)
            laws = 1;
        else if (strcmp(argv[i], "--column") == 0 && i + 1 < argc && ncols < MAX_SELECT)
            cols[ncols++] = argv[++i];
        else if (argv[i][0] != '-' && nkeys < MAX_SELECT && strcmp(sub, "lookup") == 0)
            keys[nkeys++] = argv[i];
        else {
            tools_error("table %s: unexpected argument '%s' (cradle help table)", sub, argv[i]);
            return EXIT_USAGE;
        }
    }
    cr_table *t = NULL;
    int rc = open_table(argv[2], &t);
    if (rc)
        return rc;
    if (strcmp(sub, "info") == 0)
        info(t);
    else
        rc = lookup(t, keys, nkeys, cols, ncols, json, laws);
    cr_table_close(t);
    return rc;
}
