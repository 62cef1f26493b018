/*
 * Robustness of the readers: thousands of mutated model files and law cases
 * (bytes flipped, dropped, duplicated, truncated, lines that start a directive
 * or a second document, bytes that are not UTF-8) must each give either a model
 * or a one-line error naming the file, never a crash or a hang; every law on
 * each accepted small case must not answer "ok" with a non-finite number. Run
 * under valgrind by the suite (memcheck), so a read past a buffer fails too.
 * (The libFuzzer targets in tests/fuzz go much further; this is the quick,
 * deterministic layer that runs in every build.)
 */
#include <string.h>

#include "cradle/cradle.h"
#include "testutil.h"

static unsigned long long rng = 88172645463325252ull;
static unsigned next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng >> 32);
}

static char *load(const char *name, size_t *len)
{
    char path[512], msg[256];
    snprintf(path, sizeof path, "%s/%s", CR_TEST_DATA, name);
    return cr_file_read(path, len, msg, sizeof msg, NULL);
}

/* One mutation: flip a byte to a YAML-significant or random character, drop a
 * span, duplicate a span, or cut the text. */
static size_t mutate(char *buf, size_t len, size_t cap)
{
    static const char special[] = ":-[]{},#'\"\n \t0123456789.eE+-%\\";
    /* what libfyaml 0.7.12 mishandles: a directive line, a document marker, bytes
     * that are not UTF-8, NUL, a byte-order mark */
    static const char *const hazards[] = {"\n%",           "\n---\n",  "\n...\n",
                                          "\x80",          "\xff\xfe", "\xc3",
                                          "\n%YAML 1.2\n", "\x01",     "\xef\xbb\xbf"};
    unsigned kind = next() % 5;
    if (len == 0)
        return 0;
    size_t at = next() % len;
    if (kind == 0) {
        buf[at] = next() % 2 ? special[next() % (sizeof special - 1)] : (char)(next() % 256);
    } else if (kind == 1) {
        size_t n = 1 + next() % 8;
        if (at + n > len)
            n = len - at;
        memmove(buf + at, buf + at + n, len - at - n);
        len -= n;
    } else if (kind == 2) {
        size_t n = 1 + next() % 16;
        if (at + n > len)
            n = len - at;
        if (len + n < cap) {
            memmove(buf + at + n, buf + at, len - at);
            len += n;
        }
    } else if (kind == 3) {
        len = at;
    } else if (next() % 4 == 0) {
        buf[at] = '\0';
    } else {
        const char *h = hazards[next() % (sizeof hazards / sizeof hazards[0])];
        size_t n = strlen(h);
        if (len + n < cap) {
            memmove(buf + at + n, buf + at, len - at);
            memcpy(buf + at, h, n);
            len += n;
        }
    }
    return len;
}

/* A one-line refusal that names the file. */
static int good_message(const char *msg)
{
    return strncmp(msg, "fuzz.yaml", 9) == 0 && !strchr(msg, '\n');
}

/* Every law on an accepted case (up to 24 dofs): 1 when one says "ok" with inf or NaN. */
static int ok_with_non_finite(cr_lawcase *lc)
{
    cr_impact *imp = cr_lawcase_impact(lc);
    size_t n = cr_impact_dof_count(imp), m = cr_impact_contact_count(imp);
    if (n > 24)
        return 0;
    cr_law_result *r = cr_law_result_create();
    int bad = 0;
    for (int law = 0; law < CR_LAW_COUNT; law++) {
        if (cr_law_solve(imp, (cr_law_id)law, cr_lawcase_params(lc), r) != CR_OK ||
            cr_law_result_status(r) != CR_LAW_OK)
            continue;
        const double *u = cr_law_result_velocity(r, 0), *P = cr_law_result_impulse(r, 0);
        for (size_t i = 0; i < n; i++)
            bad |= !isfinite(u[i]);
        for (size_t i = 0; i < m; i++)
            bad |= !isfinite(P[i]);
    }
    cr_law_result_destroy(r);
    return bad;
}

/* A string literal and its length (NULs included). */
#define T(s) s, sizeof(s) - 1

/* Texts each reader must refuse with one line naming the file, never loop on. */
static void hazards(void)
{
    static const struct {
        const char *text;
        size_t len;
        const char *says;
    } h[] = {
        {T("%\x80"), "not UTF-8"}, /* libfyaml 0.7.12: endless loop in fy_scan_directive */
        {T("%YAML 1.2\n%\x80\n---\na: 1\n"), "not UTF-8"},
        {T("%FOO\na: 1\n"), "unsupported directive"},
        {T(""), "empty"},
        {T("  \n\n"), "empty"},
        {T("# only\n# comments\n"), "only comments"},
        {T("\xff\xfe"
           "a\0:\0"),
         "not UTF-8"},
        {T("a\0:\0 \0"
           "1\0"),
         "not UTF-8"},
        {T("chain:\n  masses: [1,\0 1]\n"), "NUL byte"},
        {T("chain: {}\n---\nchain: {}\n"), "second YAML document"},
        {T("chain: {}\n...\nchain: {}\n"), "second YAML document"},
        {T("chain: \x01\n"), "control character"},
    };
    int bad = 0;
    char msg[1024];
    for (size_t k = 0; k < sizeof h / sizeof h[0]; k++) {
        cr_model *m = NULL;
        cr_lawcase *lc = NULL;
        int a = cr_modelfile_parse(h[k].text, h[k].len, "fuzz.yaml", &m, msg, sizeof msg);
        int ok_a = a != CR_OK && good_message(msg) && strstr(msg, h[k].says);
        if (!ok_a)
            printf("FAIL model reader on hazard %zu: rc %d: %s\n", k, a, msg);
        int b = cr_lawcase_parse(h[k].text, h[k].len, "fuzz.yaml", &lc, msg, sizeof msg);
        int ok_b = b != CR_OK && good_message(msg) && strstr(msg, h[k].says);
        if (!ok_b)
            printf("FAIL case reader on hazard %zu: rc %d: %s\n", k, b, msg);
        bad += !ok_a + !ok_b;
        cr_model_destroy(m);
        cr_lawcase_destroy(lc);
    }
    CHECK(bad == 0, "%d hazardous texts not refused with the expected one-line message", bad);
}

int main(void)
{
    static const char *const models[] = {"../../models/newton-cradle-5.yaml",
                                         "../../models/decorated-chain.yaml",
                                         "../../models/bead-column.yaml",
                                         "../../models/glocker-rods.yaml",
                                         "../../models/pendulum-cradle.yaml",
                                         "../../models/pendulum-cradle-air.yaml",
                                         "../../models/pool-bernoulli.yaml",
                                         "../../models/sphere-triple.yaml",
                                         "two-balls.yaml",
                                         "chain-pairs.yaml"};
    static const char *const cases[] = {
        "../../cases/three-ball-chain.yaml", "../../cases/pool-bernoulli.yaml",
        "../../cases/pandrea-bar.yaml", "../../cases/pandrea-shell.yaml",
        "../../cases/mosterman-four.yaml"};
    int accepted = 0, refused = 0, bad_messages = 0, non_finite = 0, cases_accepted = 0;
    hazards();
    int f0 = tu_failed;
    char msg[1024];
    for (int round = 0; round < 3000; round++) {
        int is_case = round % 3 == 2;
        const char *name = is_case ? cases[next() % 5] : models[next() % 9];
        size_t len;
        char *orig = load(name, &len);
        if (!orig) {
            CHECK(0, "cannot read %s", name);
            continue;
        }
        size_t cap = len + 256;
        char *buf = malloc(cap);
        memcpy(buf, orig, len);
        int rounds = 1 + (int)(next() % 4);
        for (int k = 0; k < rounds; k++)
            len = mutate(buf, len, cap);
        msg[0] = '\0';
        int rc;
        if (is_case) {
            cr_lawcase *lc = NULL;
            rc = cr_lawcase_parse(buf, len, "fuzz.yaml", &lc, msg, sizeof msg);
            if (rc == CR_OK) {
                cases_accepted++;
                non_finite += ok_with_non_finite(lc);
            }
            cr_lawcase_destroy(lc);
        } else {
            cr_model *m = NULL;
            rc = cr_modelfile_parse(buf, len, "fuzz.yaml", &m, msg, sizeof msg);
            cr_model_destroy(m);
        }
        if (rc == CR_OK) {
            accepted++;
        } else {
            refused++;
            /* one line that names the file */
            if (!good_message(msg)) {
                bad_messages++;
                printf("FAIL message: %s\n", msg);
            }
        }
        free(buf);
        free(orig);
    }
    CHECK(bad_messages == 0, "%d refusals without a one-line message naming the file",
          bad_messages);
    CHECK(refused > 1000 && accepted > 100, "both outcomes exercised (%d refused, %d accepted)",
          refused, accepted);
    CHECK(non_finite == 0, "%d accepted cases where a law says ok with a non-finite number",
          non_finite);
    CHECK(cases_accepted >= 50, "the laws ran on only %d accepted cases", cases_accepted);
    tu_summary(f0,
               "3000 mutated inputs: %d accepted, %d refused with one-line file messages; "
               "every law on %d accepted cases, no ok with a non-finite number",
               accepted, refused, cases_accepted);
    return tu_finish("test-fuzz");
}
