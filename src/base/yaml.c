/*
 * Helpers shared by the YAML readers (model files, law cases): a check of the
 * raw text before libfyaml sees it, libfyaml nodes to numbers, and one-line
 * "file:line: field: reason" errors with echoed values escaped.
 */
#include "base/yaml.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

/* ---- text ------------------------------------------------------------------- */

/*
 * Length of the well-formed UTF-8 sequence at s (1..4), its code point in *cp;
 * 0 when the bytes are not UTF-8 (overlong forms, surrogates and code points
 * beyond U+10FFFF included, as RFC 3629 requires).
 */
static size_t utf8_next(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t k;
    uint32_t v, min;
    if ((c & 0xe0) == 0xc0) {
        k = 2, v = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        k = 3, v = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        k = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (len < k)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return k;
}

/* YAML 1.2 c-printable, less what a reader of numbers never needs (U+FFFE/F). */
static int yaml_printable(uint32_t cp)
{
    if (cp == '\t' || cp == '\n' || cp == '\r' || cp == 0x85)
        return 1;
    if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
        return 0;
    return cp != 0xfffe && cp != 0xffff;
}

/*
 * Copies src into dst (always terminated) with everything that could break a
 * one-line message or a terminal escaped: C0 and C1 controls, DEL, bytes that
 * are not UTF-8. Other UTF-8 text is kept as it is.
 */
static void put_escaped(char *dst, size_t dlen, const char *src)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0, len = strlen(src);
    const unsigned char *s = (const unsigned char *)src;
    if (dlen == 0)
        return;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t k = utf8_next(s + i, len - i, &cp);
        char esc[8];
        size_t ne = 0;
        if (k == 0) {
            esc[ne++] = '\\', esc[ne++] = 'x', esc[ne++] = hex[s[i] >> 4];
            esc[ne++] = hex[s[i] & 15];
            k = 1;
        } else if (cp == '\n' || cp == '\t' || cp == '\r') {
            esc[ne++] = '\\', esc[ne++] = cp == '\n' ? 'n' : cp == '\t' ? 't' : 'r';
        } else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) {
            esc[ne++] = '\\', esc[ne++] = 'x', esc[ne++] = hex[cp >> 4];
            esc[ne++] = hex[cp & 15];
        }
        const char *piece = ne ? esc : (const char *)s + i;
        size_t np = ne ? ne : k;
        if (o + np + 1 > dlen)
            break; /* never cut a sequence in half */
        memcpy(dst + o, piece, np);
        o += np;
        i += k;
    }
    dst[o] = '\0';
}

/* Formats a message and stores it escaped: the one-line promise holds whatever the input. */
static void set_escaped(cr_yaml_ctx *ps, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void set_escaped(cr_yaml_ctx *ps, const char *fmt, ...)
{
    char raw[2 * CR_ERRMSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    if (ps->msg && ps->msglen)
        put_escaped(ps->msg, ps->msglen, raw);
}

void cr_yaml_echo(char *dst, size_t dlen, const char *value)
{
    char tmp[96];
    if (!value) {
        snprintf(dst, dlen, "(none)");
        return;
    }
    put_escaped(tmp, sizeof tmp, value);
    /* a value longer than fits is cut with "...": a message stays one screen line */
    if (strlen(value) > 60 && strlen(tmp) > 60) {
        size_t cut = 57;
        while (cut > 0 && ((unsigned char)tmp[cut] & 0xc0) == 0x80)
            cut--;
        tmp[cut] = '\0';
        snprintf(dst, dlen, "%s...", tmp);
    } else {
        snprintf(dst, dlen, "%s", tmp);
    }
}

static int text_fail(cr_yaml_ctx *ps, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int text_fail(cr_yaml_ctx *ps, int line, int col, const char *fmt, ...)
{
    char reason[CR_ERRMSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (col > 0)
        set_escaped(ps, "%s:%d:%d: %s", ps->file, line, col, reason);
    else
        set_escaped(ps, "%s:%d: %s", ps->file, line, reason);
    return ps->rc = CR_ERR_SYNTAX;
}

/* A YAML document marker ("---" or "...") at p, followed by a blank or the end. */
static int doc_marker(const char *p, const char *end, char c)
{
    return end - p >= 3 && p[0] == c && p[1] == c && p[2] == c &&
           (end - p == 3 || p[3] == ' ' || p[3] == '\t' || p[3] == '\n' || p[3] == '\r');
}

/* Whether the rest of a line [p, eol) holds something other than blanks and a comment. */
static int has_content(const char *p, const char *eol)
{
    while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    return p < eol && *p != '#';
}

/* Whether the line [p, eol) is a comment (the text need not end in a NUL). */
static int is_comment(const char *p, const char *eol)
{
    while (p < eol && (*p == ' ' || *p == '\t'))
        p++;
    return p < eol && *p == '#';
}

/* Encoding: UTF-8 (a UTF-8 byte-order mark is fine), YAML-printable characters only. */
static int check_encoding(cr_yaml_ctx *ps, const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    if (len >= 2 && ((s[0] == 0xff && s[1] == 0xfe) || (s[0] == 0xfe && s[1] == 0xff)))
        return text_fail(ps, 1, 0,
                         "not UTF-8 text: a UTF-16 byte-order mark; save the file "
                         "as UTF-8");
    if ((len >= 1 && s[0] == 0) || (len >= 2 && s[1] == 0))
        return text_fail(ps, 1, 0,
                         "not UTF-8 text: NUL bytes (UTF-16 or UTF-32?); save the "
                         "file as UTF-8");
    size_t i = len >= 3 && s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf ? 3 : 0;
    int line = 1, col = 1;
    for (; i < len; col++) {
        uint32_t cp;
        size_t k = utf8_next(s + i, len - i, &cp);
        if (k == 0)
            return text_fail(ps, line, col, "not UTF-8 text (byte 0x%02x)", s[i]);
        if (cp == 0)
            return text_fail(ps, line, col, "NUL byte: not a text file");
        if (!yaml_printable(cp))
            return text_fail(ps, line, col,
                             "control character U+%04X: YAML text cannot hold it (write it "
                             "as an escape in a double-quoted string)",
                             (unsigned)cp);
        if (cp == '\n')
            line++, col = 0;
        i += k;
    }
    return CR_OK;
}

/* A directive line: only %YAML and %TAG, and only before the content. */
static int check_directive(cr_yaml_ctx *ps, const char *p, const char *eol, int line, int content)
{
    size_t n = (size_t)(eol - p);
    int yaml = n >= 5 && strncmp(p, "%YAML", 5) == 0 && (n == 5 || p[5] == ' ' || p[5] == '\t');
    int tag = n >= 4 && strncmp(p, "%TAG", 4) == 0 && (n == 4 || p[4] == ' ' || p[4] == '\t');
    if (!yaml && !tag) {
        char word[48];
        size_t w = 0;
        while (p + w < eol && w + 1 < sizeof word && p[w] != ' ' && p[w] != '\t' && p[w] != '\r')
            w++;
        memcpy(word, p, w);
        word[w] = '\0';
        return text_fail(ps, line, 0, "unsupported directive '%s' (only %%YAML and %%TAG)", word);
    }
    if (content)
        return text_fail(ps, line, 0, "a directive after the document's content");
    return CR_OK;
}

/*
 * Line structure: directives, one document (a "---" after content or a second
 * "---" starts another, so does content after "..."), and something besides
 * comments. Exact in the raw text: YAML forbids "---" and "..." at the start of
 * a line inside any scalar.
 */
/* A block mapping's explicit key ("? key", after indentation and "- "
 * entries): no input of cradle needs one, and Debian's libfyaml 0.7.12 crashes
 * (SIGSEGV in fy_indent_vacuum_internal) on "? a:<TAB>:" (fuzz-modelfile) and
 * on "? :" with the tabs on the next line: the whole form is refused (a guard
 * narrowed to lines holding a tab let the second through). */
static int explicit_key_line(const char *p, const char *eol)
{
    while (p < eol && (*p == ' ' || *p == '\t' || (*p == '-' && p + 1 < eol && p[1] == ' ')))
        p++;
    return p < eol && *p == '?' && (p + 1 == eol || p[1] == ' ' || p[1] == '\t');
}

/* YAML breaks lines at a lone '\r' too ("\r\r? ::\t\t:" crashed libfyaml the
 * same way): every '\r'-separated piece of the line is a line. */
static int explicit_key(const char *p, const char *eol)
{
    for (const char *q = p;;) {
        const char *cr = memchr(q, '\r', (size_t)(eol - q)), *e = cr ? cr : eol;
        if (explicit_key_line(q, e))
            return 1;
        if (!cr)
            return 0;
        q = cr + 1;
    }
}

static int check_lines(cr_yaml_ctx *ps, const char *text, size_t len)
{
    int content = 0, started = 0, ended = 0, comments = 0, last = 1, line = 1;
    for (const char *p = text, *end = text + len; p < end; line++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        if (*p == '%') {
            if (check_directive(ps, p, eol, line, content) != CR_OK)
                return ps->rc;
        } else if (doc_marker(p, eol, '-')) {
            if (content || started || ended)
                return text_fail(ps, line, 0,
                                 "a second YAML document ('---'): a file holds one document");
            started = 1;
            content |= has_content(p + 3, eol);
            last = line;
        } else if (doc_marker(p, eol, '.')) {
            ended = 1;
            if (has_content(p + 3, eol))
                return text_fail(ps, line, 0, "content after the end of the document ('...')");
        } else if (has_content(p, eol)) {
            if (ended)
                return text_fail(ps, line, 0,
                                 "a second YAML document after '...': a file holds one document");
            if (explicit_key(p, eol))
                return text_fail(ps, line, 0,
                                 "an explicit key ('? '): write the key as 'key: value'");
            content = 1;
            last = line;
        } else if (is_comment(p, eol)) {
            comments = 1;
            last = line;
        }
        p = eol + 1;
    }
    if (!content && !started)
        return text_fail(ps, last, 0,
                         comments ? "the file holds only comments: no content (a YAML mapping "
                                    "was expected)"
                                  : "the file is empty (a YAML mapping was expected)");
    return CR_OK;
}

/*
 * The raw text, before libfyaml: UTF-8 only, printable, one document, only the
 * %YAML and %TAG directives. Debian's libfyaml 0.7.12 loops forever in
 * fy_scan_directive on a '%' line followed by invalid UTF-8, reports a NUL as a
 * missing comma and builds the first document of several without a word; an
 * empty file is a bare "syntax error". Each of these gets its own message here.
 */
/*
 * libfyaml keeps about 400 bytes per node (measured: a law case of 2·10⁶ numbers
 * takes 0.8 GB and 7 s to parse), so the number of values must be bounded before
 * it parses, not after. Every value is preceded by a separator ("," "[" "{" a
 * line break, "- " or ": "), so counting those bounds the nodes from above. The
 * largest legitimate input, a law case at the law core's caps with a full mass
 * matrix (2·10⁶ numbers), stays below.
 */
#define CR_YAML_MAX_ITEMS 2500000

static int check_size(cr_yaml_ctx *ps, const char *text, size_t len)
{
    size_t items = 1;
    int line = 1;
    for (size_t i = 0; i < len; i++) {
        char c = text[i], next = i + 1 < len ? text[i + 1] : ' ';
        line += c == '\n';
        items += c == ',' || c == '[' || c == '{' || c == '\n' ||
                 ((c == '-' || c == ':') && (next == ' ' || next == '\n'));
        if (items > CR_YAML_MAX_ITEMS)
            return text_fail(ps, line, 0,
                             "more than %d values: beyond every limit of cradle's inputs "
                             "(docs/errors.md)",
                             CR_YAML_MAX_ITEMS);
    }
    return CR_OK;
}

int cr_yaml_check_text(cr_yaml_ctx *ps, const char *text, size_t len)
{
    if (check_encoding(ps, text, len) != CR_OK || check_size(ps, text, len) != CR_OK)
        return ps->rc;
    return check_lines(ps, text, len);
}

/* ---- suggestions ------------------------------------------------------------ */

static int tolower_ascii(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Optimal-string-alignment distance (a swap of two neighbours counts 1), case-blind. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return (size_t)-1;
    size_t d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int same = tolower_ascii(a[i - 1]) == tolower_ascii(b[j - 1]);
            size_t best = d[i - 1][j - 1] + !same;
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && tolower_ascii(a[i - 1]) == tolower_ascii(b[j - 2]) &&
                tolower_ascii(a[i - 2]) == tolower_ascii(b[j - 1]) && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

const char *cr_yaml_closest(const char *word, const char *const *candidates)
{
    if (!word || !word[0])
        return NULL;
    size_t lw = strlen(word);
    /* a typo, not a different word: 1 edit up to 4 letters, 2 up to 8, then 3 */
    size_t limit = lw <= 4 ? 1 : lw <= 8 ? 2 : 3;
    const char *best = NULL;
    size_t bestd = limit + 1;
    for (const char *const *c = candidates; *c; c++) {
        size_t d = edit_distance(word, *c);
        if (d < bestd) {
            bestd = d;
            best = *c;
        }
    }
    return best;
}

/* ---- fields and nodes ------------------------------------------------------- */

void cr_yaml_path(char *dst, size_t dlen, const char *where, const char *key)
{
    snprintf(dst, dlen, "%s%s%s", where ? where : "", where && where[0] ? "." : "", key);
}

/*
 * libfyaml 0.7.12 leaks the buffer it builds for the text of a single-quoted
 * scalar with '' escapes (512 B to 4 KiB per scalar, whichever call asks:
 * fy_node_get_scalar0, fy_node_get_scalar, the emitter; found by the fuzz
 * target, LeakSanitizer). Its length is computed without the leak, and for
 * plain text the length equals the source span: when they differ the scalar
 * holds escapes or folded lines, and its text is not asked for. Such text is
 * never a number, a key of the schema or a keyword.
 */
static int leaky_scalar(struct fy_node *n)
{
    struct fy_token *t = fy_node_get_scalar_token(n);
    if (!t || fy_token_scalar_style(t) != FYSS_SINGLE_QUOTED)
        return 0;
    const struct fy_mark *a = fy_token_start_mark(t), *b = fy_token_end_mark(t);
    return !a || !b || b->input_pos < a->input_pos ||
           (size_t)(b->input_pos - a->input_pos) != fy_node_get_scalar_length(n);
}

const char *cr_yaml_text(struct fy_node *n)
{
    if (!n || !fy_node_is_scalar(n) || leaky_scalar(n))
        return NULL;
    return fy_node_get_scalar0(n);
}

int cr_yaml_line(struct fy_node *n)
{
    if (!n)
        return 0;
    switch (fy_node_get_type(n)) {
    case FYNT_SCALAR: {
        struct fy_token *t = fy_node_get_scalar_token(n);
        const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;
        return m ? m->line + 1 : 0;
    }
    case FYNT_MAPPING: {
        void *it = NULL;
        struct fy_node_pair *p = fy_node_mapping_iterate(n, &it);
        return p ? cr_yaml_line(fy_node_pair_key(p)) : 0;
    }
    case FYNT_SEQUENCE:
        return cr_yaml_line(fy_node_sequence_get_by_index(n, 0));
    }
    return 0;
}

int cr_yaml_key_line(struct fy_node *map, const char *key)
{
    if (!map || !fy_node_is_mapping(map))
        return 0;
    void *it = NULL;
    struct fy_node_pair *p;
    while ((p = fy_node_mapping_iterate(map, &it))) {
        const char *k = cr_yaml_text(fy_node_pair_key(p));
        if (k && strcmp(k, key) == 0) {
            /* the value's own line when it has one (an empty list has none) */
            int l = cr_yaml_line(fy_node_pair_value(p));
            return l ? l : cr_yaml_line(fy_node_pair_key(p));
        }
    }
    return 0;
}

/* The override whose field is @p field or lies inside it ("chain.count" lies
 * inside "chain"): @p inside says which. */
static const cr_yaml_set *set_of(const cr_yaml_ctx *ps, const char *field, int *inside)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; field && i < ps->nsets; i++) {
            const char *a = pass ? ps->sets[i].path : field, *b = pass ? field : ps->sets[i].path;
            size_t n = strlen(b);
            if (strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '.' || a[n] == '[')) {
                *inside = pass && a[n] != '\0';
                return &ps->sets[i];
            }
        }
    return NULL;
}

int cr_yaml_fail(cr_yaml_ctx *ps, int line, const char *field, const char *fmt, ...)
{
    if (ps->rc != CR_OK)
        return ps->rc; /* keep the first error */
    char reason[CR_ERRMSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    int inside = 0;
    const cr_yaml_set *set = set_of(ps, field, &inside);
    if (set && !inside) /* the value came from the command line, not from the file */
        set_escaped(ps, "%s: %s: %s", set->arg, field, reason);
    else if (set && line > 0) /* a field of the file holding an override */
        set_escaped(ps, "%s:%d: %s: %s (with %s)", ps->file, line, field, reason, set->arg);
    else if (line > 0)
        set_escaped(ps, "%s:%d: %s: %s", ps->file, line, field, reason);
    else
        set_escaped(ps, "%s: %s: %s", ps->file, field, reason);
    ps->rc = CR_ERR_MODEL;
    return ps->rc;
}

void cr_yaml_where(const cr_yaml_ctx *ps, int line, const char *field, char *dst, size_t dlen)
{
    int inside = 0;
    const cr_yaml_set *set = set_of(ps, field, &inside);
    char raw[2 * CR_ERRMSG_LEN];
    if (set && !inside)
        snprintf(raw, sizeof raw, "%s: %s", set->arg, field);
    else if (line > 0)
        snprintf(raw, sizeof raw, "%s:%d: %s", ps->file, line, field);
    else
        snprintf(raw, sizeof raw, "%s: %s", ps->file, field);
    put_escaped(dst, dlen, raw);
}

/* Rejects keys the schema does not know: a typo must not silently become a default. */
int cr_yaml_check_keys(cr_yaml_ctx *ps, struct fy_node *map, const char *where,
                       const char *const *allowed)
{
    void *it = NULL;
    struct fy_node_pair *p;
    while ((p = fy_node_mapping_iterate(map, &it))) {
        struct fy_node *kn = fy_node_pair_key(p);
        const char *key = cr_yaml_text(kn);
        int ok = 0;
        for (const char *const *a = allowed; *a && key; a++)
            ok |= strcmp(key, *a) == 0;
        if (ok)
            continue;
        char field[256], shown[96];
        cr_yaml_echo(shown, sizeof shown,
                     key                     ? key
                     : fy_node_is_scalar(kn) ? "(a quoted key with escapes)"
                                             : "(a key that is not a word)");
        cr_yaml_path(field, sizeof field, where, shown);
        int line = cr_yaml_line(kn);
        if (!line)
            line = cr_yaml_line(fy_node_pair_value(p));
        const char *near = key ? cr_yaml_closest(key, allowed) : NULL;
        if (near)
            return cr_yaml_fail(ps, line, field, "unknown field; did you mean '%s'?", near);
        char list[256] = "";
        for (const char *const *a = allowed; *a; a++) {
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s", a == allowed ? "" : ", ", *a);
        }
        return cr_yaml_fail(ps, line, field, "unknown field (known here: %s)", list);
    }
    return CR_OK;
}

struct fy_node *cr_yaml_child(struct fy_node *map, const char *key)
{
    return map && fy_node_is_mapping(map) ? fy_node_mapping_lookup_by_string(map, key, FY_NT)
                                          : NULL;
}

int cr_yaml_need_map(cr_yaml_ctx *ps, struct fy_node *n, int line, const char *field)
{
    if (!n || !fy_node_is_mapping(n)) {
        int l = n ? cr_yaml_line(n) : 0;
        return cr_yaml_fail(ps, l ? l : line, field, "must be a mapping (key: value)");
    }
    return CR_OK;
}

/* 0: a finite number in *v; 1: not a number; 2: a number but not finite. */
static int parse_number(const char *s, double *v)
{
    if (!s || !*s)
        return 1;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end != '\0')
        return 1;
    /* strtod reads "nan", "inf" and overflow as numbers; none is a value here */
    if (!isfinite(x) || (errno == ERANGE && fabs(x) > 1.0))
        return 2;
    *v = x;
    return 0;
}

/* A number field. `required` → missing is an error; otherwise *out keeps its default.
 * `allow_auto` → the word "auto" stores 0. */
int cr_yaml_number(cr_yaml_ctx *ps, struct fy_node *map, int map_line, const char *where,
                   const char *key, int required, int allow_auto, double *out)
{
    char field[256], shown[96];
    cr_yaml_path(field, sizeof field, where, key);
    struct fy_node *n = cr_yaml_child(map, key);
    if (!n) {
        if (required)
            return cr_yaml_fail(ps, map_line, field, "missing required field");
        return CR_OK;
    }
    const char *s = cr_yaml_text(n);
    int line = cr_yaml_line(n) ? cr_yaml_line(n) : cr_yaml_key_line(map, key);
    if (!s && fy_node_is_scalar(n))
        return cr_yaml_fail(ps, line ? line : map_line, field,
                            "must be a number, not quoted text with escapes");
    if (!s)
        return cr_yaml_fail(ps, line ? line : map_line, field, "must be a number, not a %s",
                            fy_node_is_mapping(n) ? "mapping" : "list");
    if (allow_auto && strcmp(s, "auto") == 0) {
        *out = 0.0;
        return CR_OK;
    }
    double v;
    int bad = parse_number(s, &v);
    cr_yaml_echo(shown, sizeof shown, s);
    if (bad == 1)
        return cr_yaml_fail(ps, line, field, "must be a number%s (got '%s')",
                            allow_auto ? " or 'auto'" : "", shown);
    if (bad == 2)
        return cr_yaml_fail(ps, line, field, "must be a finite number (got '%s')", shown);
    *out = v;
    return CR_OK;
}

int cr_yaml_count_in(cr_yaml_ctx *ps, struct fy_node *map, int map_line, const char *where,
                     const char *key, int required, long minimum, long maximum, long *out)
{
    double v = (double)*out;
    if (cr_yaml_number(ps, map, map_line, where, key, required, 0, &v) != CR_OK)
        return ps->rc;
    if (v != floor(v) || v < (double)minimum || v > (double)maximum) {
        char field[256];
        cr_yaml_path(field, sizeof field, where, key);
        return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, key)), field,
                            "must be a whole number from %ld to %ld (got %g)", minimum, maximum, v);
    }
    *out = (long)v;
    return CR_OK;
}

int cr_yaml_count(cr_yaml_ctx *ps, struct fy_node *map, int map_line, const char *where,
                  const char *key, int required, long minimum, long *out)
{
    return cr_yaml_count_in(ps, map, map_line, where, key, required, minimum, 100000000L, out);
}

int cr_yaml_positive(cr_yaml_ctx *ps, struct fy_node *map, const char *where, const char *key,
                     double v)
{
    if (v > 0.0)
        return CR_OK;
    char field[256];
    cr_yaml_path(field, sizeof field, where, key);
    return cr_yaml_fail(ps, cr_yaml_line(cr_yaml_child(map, key)), field,
                        "must be positive (got %g)", v);
}

int cr_yaml_syntax_error(cr_yaml_ctx *ps, struct fy_diag *diag)
{
    void *it = NULL;
    struct fy_diag_error *e;
    while ((e = fy_diag_errors_iterate(diag, &it))) {
        if (e->type < FYET_ERROR)
            continue;
        set_escaped(ps, "%s:%d:%d: YAML syntax error: %s", ps->file, e->line + 1, e->column + 1,
                    e->msg ? e->msg : "?");
        return ps->rc = CR_ERR_SYNTAX;
    }
    set_escaped(ps, "%s: YAML syntax error", ps->file);
    return ps->rc = CR_ERR_SYNTAX;
}

/* An alias inside the node its anchor names (&a [*a]): a document that would
 * be infinite once resolved. The first one found, or NULL. Depth-bounded: the
 * item cap keeps documents small enough for this walk. */
static struct fy_node *recursive_alias(struct fy_node *n, int depth)
{
    if (!n || depth > 10000)
        return NULL;
    if (fy_node_is_alias(n)) {
        struct fy_node *target = fy_node_resolve_alias(n);
        for (struct fy_node *p = fy_node_get_parent(n); target && p; p = fy_node_get_parent(p))
            if (p == target)
                return n;
        return NULL;
    }
    void *it = NULL;
    if (fy_node_is_sequence(n)) {
        struct fy_node *item;
        while ((item = fy_node_sequence_iterate(n, &it)))
            if ((item = recursive_alias(item, depth + 1)))
                return item;
    } else if (fy_node_is_mapping(n)) {
        struct fy_node_pair *pair;
        while ((pair = fy_node_mapping_iterate(n, &it))) {
            struct fy_node *r = recursive_alias(fy_node_pair_key(pair), depth + 1);
            if (!r)
                r = recursive_alias(fy_node_pair_value(pair), depth + 1);
            if (r)
                return r;
        }
    }
    return NULL;
}

struct fy_document *cr_yaml_parse(cr_yaml_ctx *ps, const char *text, size_t len)
{
    if (!text) {
        set_escaped(ps, "%s: no text", ps->file);
        ps->rc = CR_ERR_INVALID;
        return NULL;
    }
    if (cr_yaml_check_text(ps, text, len) != CR_OK)
        return NULL;
    struct fy_diag_cfg dcfg;
    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    dcfg.colorize = false;
    struct fy_diag *diag = fy_diag_create(&dcfg);
    if (!diag) {
        set_escaped(ps, "%s: out of memory", ps->file);
        ps->rc = CR_ERR_NOMEM;
        return NULL;
    }
    /* collected, not printed: the library never prints */
    fy_diag_set_collect_errors(diag, true);
    struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET | FYPCF_COLLECT_DIAG, .diag = diag};
    struct fy_document *doc = fy_document_build_from_string(&cfg, text, len);
    if (!doc)
        cr_yaml_syntax_error(ps, diag);
    fy_diag_destroy(diag);
    struct fy_node *loop = doc ? recursive_alias(fy_document_root(doc), 0) : NULL;
    if (loop) {
        set_escaped(ps,
                    "%s:%d: an alias inside the node its anchor names (a recursive alias): "
                    "YAML that never ends",
                    ps->file, cr_yaml_line(loop));
        ps->rc = CR_ERR_SYNTAX;
        fy_document_destroy(doc);
        return NULL;
    }
    return doc;
}

int cr_yaml_numbers(cr_yaml_ctx *ps, struct fy_node *node, const char *field, double *out,
                    size_t max, size_t *n)
{
    *n = 0;
    char f[288], shown[96];
    if (!node)
        return cr_yaml_fail(ps, 0, field, "missing required field");
    if (fy_node_is_scalar(node)) {
        const char *s = cr_yaml_text(node);
        double v;
        int bad = parse_number(s, &v);
        cr_yaml_echo(shown, sizeof shown, s ? s : "quoted text with escapes");
        if (bad)
            return cr_yaml_fail(ps, cr_yaml_line(node), field, "must be a %snumber (got '%s')",
                                bad == 2 ? "finite " : "", shown);
        if (max < 1)
            return cr_yaml_fail(ps, cr_yaml_line(node), field, "too many values");
        out[(*n)++] = v;
        return CR_OK;
    }
    if (!fy_node_is_sequence(node))
        return cr_yaml_fail(ps, cr_yaml_line(node), field, "must be a list of numbers");
    void *it = NULL;
    struct fy_node *item;
    while ((item = fy_node_sequence_iterate(node, &it))) {
        snprintf(f, sizeof f, "%s[%zu]", field, *n);
        if (!fy_node_is_scalar(item))
            return cr_yaml_fail(ps, cr_yaml_line(item) ? cr_yaml_line(item) : cr_yaml_line(node), f,
                                "must be a number, not a %s",
                                fy_node_is_mapping(item) ? "mapping" : "list");
        const char *s = cr_yaml_text(item);
        double v;
        int bad = parse_number(s, &v);
        cr_yaml_echo(shown, sizeof shown, s ? s : "quoted text with escapes");
        if (bad)
            return cr_yaml_fail(ps, cr_yaml_line(item), f, "must be a %snumber (got '%s')",
                                bad == 2 ? "finite " : "", shown);
        if (*n >= max)
            return cr_yaml_fail(ps, cr_yaml_line(item), field, "more than %zu values", max);
        out[(*n)++] = v;
    }
    return CR_OK;
}

char *cr_yaml_read_file(const char *path, size_t *len_out, char *msg, size_t msglen, int *rc)
{
    return cr_file_read(path, len_out, msg, msglen, rc);
}
