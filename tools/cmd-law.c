/* cradle law NAME [CASE | --input CASE] [--json]: one rigid impact law on one case. */
#include <getopt.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/cradle.h"
#include "tools-common.h"
#include "tools-json.h"

void usage_law(FILE *out)
{
    fputs("usage: cradle law NAME CASE [--json]\n"
          "       cradle law NAME --input CASE [--json]\n"
          "       cradle law --list\n"
          "\n"
          "Applies a rigid impact law to the impact configuration in CASE (YAML, see\n"
          "docs/law-case-format.md) and prints u+, the contact impulses P, T+/T- and\n"
          "the law's status (ok, infeasible, multiple, not-terminated, solver-failed,\n"
          "negative-impulse). A case larger than the law takes (docs/errors.md) is\n"
          "refused with exit status 3. lzb (Liu, Zhao & Brogliato) takes the pair laws\n"
          "(stiffness, exponent, energetic_restitution) and nothing measured.\n"
          "poisson takes poisson_restitution when the case has it; restitutions\n"
          "above 1 (measured) need 'superelastic: true' in the case's law block.\n"
          "\n"
          "  -i, --input CASE   the case file (or give it after NAME)\n"
          "  -j, --json         machine-readable output (one JSON object)\n"
          "  -l, --list         list the laws\n"
          "  -h, --help         show this help\n",
          out);
}

/* Text made valid UTF-8 (a file name may hold any bytes; JSON must not): each byte that
 * does not belong to a well-formed sequence becomes U+FFFD. Caller frees. */
static char *valid_utf8(const char *s)
{
    size_t len = strlen(s);
    char *out = malloc(3 * len + 1);
    size_t o = 0;
    if (!out)
        return NULL;
    for (size_t i = 0; i < len;) {
        const unsigned char *p = (const unsigned char *)s + i;
        size_t k = p[0] < 0x80             ? 1
                   : (p[0] & 0xe0) == 0xc0 ? 2
                   : (p[0] & 0xf0) == 0xe0 ? 3
                   : (p[0] & 0xf8) == 0xf0 ? 4
                                           : 0;
        int ok = k > 0 && i + k <= len;
        for (size_t j = 1; ok && j < k; j++)
            ok = (p[j] & 0xc0) == 0x80;
        if (ok && k == 2)
            ok = p[0] >= 0xc2;
        if (ok && k == 3) {
            unsigned cp = ((p[0] & 0x0fu) << 12) | ((p[1] & 0x3fu) << 6) | (p[2] & 0x3fu);
            ok = cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff);
        }
        if (ok && k == 4) {
            unsigned cp = ((p[0] & 0x07u) << 18) | ((p[1] & 0x3fu) << 12);
            ok = cp >= 0x10000 && cp <= 0x10ffff;
        }
        if (ok) {
            memcpy(out + o, p, k);
            o += k;
            i += k;
        } else {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    out[o] = '\0';
    return out;
}

static json_object *jstring(const char *s)
{
    char *v = valid_utf8(s ? s : "");
    json_object *o = v ? json_object_new_string(v) : NULL;
    free(v);
    return o;
}

/* The whole answer as one JSON object, through json-c: names with quotes,
 * backslashes, newlines or non-ASCII text stay valid JSON. */
static int print_json(const char *input, cr_law_id law, const cr_lawcase *lc,
                      const cr_law_result *res, const double *gamma)
{
    cr_impact *imp = cr_lawcase_impact(lc);
    size_t n = cr_impact_dof_count(imp), m = cr_impact_contact_count(imp);
    json_object *o = json_object_new_object();
    if (!o)
        return -1;
    json_object_object_add(o, "law", jstring(cr_law_name(law)));
    json_object_object_add(o, "case", jstring(input));
    json_object_object_add(o, "kind", jstring(cr_lawcase_kind(lc)));
    json_object_object_add(o, "dofs", json_object_new_int64((int64_t)n));
    json_object_object_add(o, "contacts", json_object_new_int64((int64_t)m));
    json_object_object_add(o, "status", jstring(cr_law_status_name(cr_law_result_status(res))));
    json_object_object_add(o, "message", jstring(cr_law_result_message(res)));
    json_object_object_add(o, "residual", tools_json_number(cr_law_result_residual(res)));
    json_object_object_add(o, "gamma_minus", tools_json_numbers(gamma, m));
    json_object_object_add(o, "trace", jstring(cr_law_result_trace(res)));
    json_object *outs = json_object_new_array();
    for (size_t k = 0; outs && k < cr_law_result_outcome_count(res); k++) {
        json_object *oc = json_object_new_object();
        json_object_object_add(oc, "velocity",
                               tools_json_numbers(cr_law_result_velocity(res, k), n));
        json_object_object_add(oc, "impulse", tools_json_numbers(cr_law_result_impulse(res, k), m));
        json_object_object_add(oc, "energy_ratio",
                               tools_json_number(cr_law_result_energy_ratio(res, k)));
        json_object_array_add(outs, oc);
    }
    json_object_object_add(o, "outcomes", outs);
    const char *text =
        json_object_to_json_string_ext(o, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = text && printf("%s\n", text) > 0 ? 0 : -1;
    json_object_put(o);
    return rc;
}

static void text_array(const char *label, const double *v, size_t n)
{
    printf("  %-7s", label);
    for (size_t i = 0; i < n; i++)
        printf(" %.10g", v[i]);
    putchar('\n');
}

static void print_text(const char *input, cr_law_id law, const cr_lawcase *lc,
                       const cr_law_result *res, const double *gamma)
{
    cr_impact *imp = cr_lawcase_impact(lc);
    size_t n = cr_impact_dof_count(imp), m = cr_impact_contact_count(imp);
    size_t count = cr_law_result_outcome_count(res);
    printf("law %s on %s (%s, %zu dofs, %zu contacts): %s%s%s\n", cr_law_name(law), input,
           cr_lawcase_kind(lc), n, m, cr_law_status_name(cr_law_result_status(res)),
           cr_law_result_message(res)[0] ? ": " : "", cr_law_result_message(res));
    text_array("gamma-", gamma, m);
    for (size_t k = 0; k < count; k++) {
        if (count > 1)
            printf(" outcome %zu:\n", k + 1);
        text_array("u+", cr_law_result_velocity(res, k), n);
        text_array("P", cr_law_result_impulse(res, k), m);
        printf("  T+/T-   %.10g\n", cr_law_result_energy_ratio(res, k));
    }
    /* Mosterman's collision sets, LZB's primary contacts and event count */
    if (cr_law_result_trace(res)[0])
        printf("  %-7s %s\n", law == CR_LAW_MOSTERMAN ? "sets" : "trace", cr_law_result_trace(res));
}

/* Arguments: the law's name and the case (positional or --input). 0, or an exit status. */
static int parse_args(int argc, char **argv, cr_law_id *law, const char **input, int *json)
{
    static const struct option opts[] = {{"input", required_argument, NULL, 'i'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"list", no_argument, NULL, 'l'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int c;
    *input = NULL;
    *json = 0;
    optind = 1;
    opterr = 0; /* tools_bad_option says it in one line */
    while ((c = getopt_long(argc, argv, "i:jlh", opts, NULL)) != -1) {
        switch (c) {
        case 'i':
            *input = optarg;
            break;
        case 'j':
            *json = 1;
            break;
        case 'l':
            for (int k = 0; k < CR_LAW_COUNT; k++)
                printf("%s\n", cr_law_name((cr_law_id)k));
            return -1;
        case 'h':
            usage_law(stdout);
            return -1;
        default:
            return tools_bad_option("law", argv);
        }
    }
    if (optind >= argc) {
        tools_error("law: name the law (cradle law --list)");
        return EXIT_USAGE;
    }
    const char *name = argv[optind++];
    if (cr_law_from_name(name, law) != CR_OK) {
        const char *near = cr_law_suggest(name);
        if (near)
            tools_error("law: unknown law '%s'; did you mean '%s'? (cradle law --list)", name,
                        near);
        else
            tools_error("law: unknown law '%s' (cradle law --list)", name);
        return EXIT_USAGE;
    }
    if (optind < argc) {
        if (*input && strcmp(*input, argv[optind]) != 0) {
            tools_error("law: two cases given ('%s' and --input '%s'): give one", argv[optind],
                        *input);
            return EXIT_USAGE;
        }
        *input = argv[optind++];
    }
    if (optind < argc) {
        tools_error("law: unexpected argument '%s' (one case per run)", argv[optind]);
        return EXIT_USAGE;
    }
    if (!*input) {
        tools_error("law: name the case: cradle law %s CASE", name);
        return EXIT_USAGE;
    }
    return 0;
}

int cmd_law(int argc, char **argv)
{
    cr_law_id law;
    const char *input;
    int json;
    int st = parse_args(argc, argv, &law, &input, &json);
    if (st)
        return st < 0 ? 0 : st;
    char msg[1024];
    cr_lawcase *lc = NULL;
    if (tools_is_hdf5(input)) {
        tools_error("%s: a run file, not a law case: add --episode K (cradle law %s --input "
                    "RUN.h5 --episode K)",
                    input, cr_law_name(law));
        return EXIT_INPUT;
    }
    if (cr_lawcase_load(input, &lc, msg, sizeof msg) != CR_OK) {
        tools_error("%s", msg);
        return EXIT_INPUT;
    }
    cr_impact *imp = cr_lawcase_impact(lc);
    cr_law_result *res = cr_law_result_create();
    int rc = res ? cr_law_solve(imp, law, cr_lawcase_params(lc), res) : CR_ERR_NOMEM;
    if (rc == CR_OK && cr_law_result_status(res) == CR_LAW_TOO_LARGE) {
        /* a size the law does not take is bad input, like any other cap */
        tools_error("%s: %s: too large: %s (docs/errors.md)", input, cr_law_name(law),
                    cr_law_result_message(res));
        rc = CR_ERR_INVALID;
    } else if (rc != CR_OK) {
        tools_error("%s: %s: %s", input, cr_law_name(law),
                    rc == CR_ERR_NOMEM ? "out of memory" : cr_impact_last_error(imp));
    }
    size_t m = cr_impact_contact_count(imp);
    double *gamma = rc == CR_OK ? malloc((m ? m : 1) * sizeof(double)) : NULL;
    if (rc == CR_OK && (!gamma || cr_impact_get_gamma(imp, gamma) != CR_OK)) {
        tools_error("%s: %s: out of memory", input, cr_law_name(law));
        rc = CR_ERR_NOMEM;
    }
    if (rc == CR_OK && json && print_json(input, law, lc, res, gamma) != 0) {
        tools_error("law: cannot write the JSON output");
        rc = CR_ERR_IO;
    } else if (rc == CR_OK && !json) {
        print_text(input, law, lc, res, gamma);
    }
    free(gamma);
    cr_law_result_destroy(res);
    cr_lawcase_destroy(lc);
    /* a law that ran answers 0 even when its verdict is "infeasible": the
     * verdict is data, printed above */
    return rc == CR_OK ? 0 : rc == CR_ERR_IO || rc == CR_ERR_NOMEM ? EXIT_RUN : EXIT_INPUT;
}
