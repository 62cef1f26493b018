/* cradle law NAME --input case.yaml [--json]: one rigid impact law on one case. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/cradle.h"
#include "tools-common.h"

void usage_law(FILE *out)
{
    fputs("usage: cradle law NAME --input CASE [--json]\n"
          "       cradle law --list\n"
          "\n"
          "Applies a rigid impact law to the impact configuration in CASE (YAML, see\n"
          "docs/law-case-format.md) and prints u+, the contact impulses P, T+/T- and\n"
          "the law's status (ok, infeasible, multiple, not-terminated, solver-failed,\n"
          "negative-impulse).\n"
          "\n"
          "  -i, --input CASE   the case file (required)\n"
          "  -j, --json         machine-readable output\n"
          "  -l, --list         list the laws\n"
          "  -h, --help         show this help\n",
          out);
}

static void json_array(const double *v, size_t n)
{
    putchar('[');
    for (size_t i = 0; i < n; i++)
        printf(isfinite(v[i]) ? "%s%.17g" : "%snull", i ? ", " : "", v[i]);
    putchar(']');
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    putchar('"');
}

static void text_array(const char *label, const double *v, size_t n)
{
    printf("  %-7s", label);
    for (size_t i = 0; i < n; i++)
        printf(" %.10g", v[i]);
    putchar('\n');
}

int cmd_law(int argc, char **argv)
{
    static const struct option opts[] = {{"input", required_argument, NULL, 'i'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"list", no_argument, NULL, 'l'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *input = NULL;
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "i:jlh", opts, NULL)) != -1) {
        switch (c) {
        case 'i':
            input = optarg;
            break;
        case 'j':
            json = 1;
            break;
        case 'l':
            for (int k = 0; k < CR_LAW_COUNT; k++)
                printf("%s\n", cr_law_name((cr_law_id)k));
            return 0;
        case 'h':
            usage_law(stdout);
            return 0;
        default:
            usage_law(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind >= argc || !input) {
        tools_error(optind >= argc ? "law: name the law (cradle law --list)"
                                   : "law: --input CASE is required");
        return EXIT_USAGE;
    }
    cr_law_id law;
    if (cr_law_from_name(argv[optind], &law) != CR_OK) {
        tools_error("law: unknown law '%s' (cradle law --list)", argv[optind]);
        return EXIT_USAGE;
    }
    char msg[1024];
    cr_lawcase *lc = NULL;
    if (cr_lawcase_load(input, &lc, msg, sizeof msg) != CR_OK) {
        tools_error("%s", msg);
        return EXIT_INPUT;
    }
    cr_impact *imp = cr_lawcase_impact(lc);
    cr_law_result *res = cr_law_result_create();
    int rc = res ? cr_law_solve(imp, law, cr_lawcase_params(lc), res) : CR_ERR_NOMEM;
    if (rc != CR_OK) {
        tools_error("%s: %s: %s", input, cr_law_name(law),
                    rc == CR_ERR_NOMEM ? "out of memory" : cr_impact_last_error(imp));
        cr_law_result_destroy(res);
        cr_lawcase_destroy(lc);
        return EXIT_INPUT;
    }
    size_t n = cr_impact_dof_count(imp), m = cr_impact_contact_count(imp);
    size_t count = cr_law_result_outcome_count(res);
    double *gamma = malloc((m ? m : 1) * sizeof(double));
    cr_impact_get_gamma(imp, gamma);
    cr_law_status st = cr_law_result_status(res);
    if (json) {
        printf("{\"law\": \"%s\", \"case\": ", cr_law_name(law));
        json_string(input);
        printf(", \"kind\": \"%s\", \"dofs\": %zu, \"contacts\": %zu, \"status\": \"%s\", "
               "\"message\": ",
               cr_lawcase_kind(lc), n, m, cr_law_status_name(st));
        json_string(cr_law_result_message(res));
        printf(", \"residual\": %.3g, \"gamma_minus\": ", cr_law_result_residual(res));
        json_array(gamma, m);
        printf(", \"trace\": ");
        json_string(cr_law_result_trace(res));
        printf(", \"outcomes\": [");
        for (size_t k = 0; k < count; k++) {
            printf("%s{\"velocity\": ", k ? ", " : "");
            json_array(cr_law_result_velocity(res, k), n);
            printf(", \"impulse\": ");
            json_array(cr_law_result_impulse(res, k), m);
            double ratio = cr_law_result_energy_ratio(res, k);
            printf(isfinite(ratio) ? ", \"energy_ratio\": %.17g}" : ", \"energy_ratio\": null}",
                   ratio);
        }
        printf("]}\n");
    } else {
        printf("law %s on %s (%s, %zu dofs, %zu contacts): %s%s%s\n", cr_law_name(law), input,
               cr_lawcase_kind(lc), n, m, cr_law_status_name(st),
               cr_law_result_message(res)[0] ? ": " : "", cr_law_result_message(res));
        text_array("gamma-", gamma, m);
        for (size_t k = 0; k < count; k++) {
            if (count > 1)
                printf(" outcome %zu:\n", k + 1);
            text_array("u+", cr_law_result_velocity(res, k), n);
            text_array("P", cr_law_result_impulse(res, k), m);
            printf("  T+/T-   %.10g\n", cr_law_result_energy_ratio(res, k));
        }
        if (cr_law_result_trace(res)[0])
            printf("  sets    %s\n", cr_law_result_trace(res));
    }
    free(gamma);
    cr_law_result_destroy(res);
    cr_lawcase_destroy(lc);
    /* a law that ran answers 0 even when its verdict is "infeasible": the
     * verdict is data, printed above */
    return 0;
}
