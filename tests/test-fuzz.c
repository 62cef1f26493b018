/*
 * Robustness of the readers: thousands of mutated model files and law cases
 * (bytes flipped, dropped, duplicated, truncated) must each give either a model
 * or a one-line error naming the file, never a crash or a hang. Run under
 * valgrind by the suite (memcheck), so a read past a buffer fails too.
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
    static const char special[] = ":-[]{},#'\"\n \t0123456789.eE+-";
    unsigned kind = next() % 4;
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
    } else {
        len = at;
    }
    return len;
}

int main(void)
{
    static const char *const models[] = {"../../models/newton-cradle-5.yaml",
                                         "../../models/decorated-chain.yaml",
                                         "../../models/bead-column.yaml",
                                         "../../models/glocker-rods.yaml",
                                         "../../models/pendulum-cradle.yaml",
                                         "../../models/pool-bernoulli.yaml",
                                         "two-balls.yaml", "chain-pairs.yaml"};
    static const char *const cases[] = {"../../cases/three-ball-chain.yaml",
                                        "../../cases/pool-bernoulli.yaml",
                                        "../../cases/pandrea-bar.yaml",
                                        "../../cases/pandrea-shell.yaml"};
    int accepted = 0, refused = 0, bad_messages = 0;
    char msg[1024];
    for (int round = 0; round < 3000; round++) {
        int is_case = round % 3 == 2;
        const char *name = is_case ? cases[next() % 4] : models[next() % 8];
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
            if (!strstr(msg, "fuzz.yaml") || strchr(msg, '\n'))
                bad_messages++;
        }
        free(buf);
        free(orig);
    }
    CHECK(bad_messages == 0, "%d refusals without a one-line message naming the file",
          bad_messages);
    CHECK(refused > 1000 && accepted > 100, "both outcomes exercised (%d refused, %d accepted)",
          refused, accepted);
    printf("ok   3000 mutated inputs: %d accepted, %d refused with one-line file messages\n",
           accepted, refused);
    return tu_finish("test-fuzz");
}
