/* Small HDF5 helpers every writer of cradle files shares (src/base/h5-util.h). */
#include "base/h5-util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

hid_t cr_h5_utf8_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

hid_t cr_h5_fixed_string(size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, n) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
                   H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

int cr_h5_attr_number(hid_t obj, const char *name, hid_t type, const void *v)
{
    htri_t there = H5Aexists(obj, name);
    if (there < 0)
        return -1;
    hid_t a;
    if (there) {
        a = H5Aopen(obj, name, H5P_DEFAULT);
    } else {
        hid_t space = H5Screate(H5S_SCALAR);
        a = space < 0 ? -1 : H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
        if (space >= 0)
            H5Sclose(space);
    }
    if (a < 0)
        return -1;
    int e = H5Awrite(a, type, v) < 0 ? -1 : 0;
    return H5Aclose(a) < 0 ? -1 : e;
}

int cr_h5_attr_string(hid_t obj, const char *name, const char *value)
{
    hid_t t = cr_h5_utf8_type();
    if (t < 0)
        return -1;
    const char *p = value ? value : "";
    int e = cr_h5_attr_number(obj, name, t, &p);
    return H5Tclose(t) < 0 ? -1 : e;
}

int cr_h5_attr_double(hid_t obj, const char *name, double v)
{
    return cr_h5_attr_number(obj, name, H5T_NATIVE_DOUBLE, &v);
}

int cr_h5_attr_int64(hid_t obj, const char *name, int64_t v)
{
    return cr_h5_attr_number(obj, name, H5T_NATIVE_INT64, &v);
}

hid_t cr_h5_compound_type(size_t size, const cr_h5_column *c, size_t nc)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, size);
    for (size_t i = 0; t >= 0 && i < nc; i++)
        if (H5Tinsert(t, c[i].name, c[i].offset, c[i].type) < 0) {
            H5Tclose(t);
            return -1;
        }
    return t;
}

int cr_h5_attr_strings(hid_t obj, const char *name, const char *const *v, size_t n)
{
    hsize_t dim = n;
    hid_t t = cr_h5_utf8_type(), space = H5Screate_simple(1, &dim, NULL);
    hid_t a = t < 0 || space < 0 ? -1 : H5Acreate2(obj, name, t, space, H5P_DEFAULT, H5P_DEFAULT);
    int e = a < 0 || H5Awrite(a, t, v) < 0 ? -1 : 0;
    if (a >= 0 && H5Aclose(a) < 0)
        e = -1;
    if (space >= 0)
        H5Sclose(space);
    if (t >= 0)
        H5Tclose(t);
    return e;
}

/* Tables have at most this many columns (the widest, /comparison/rows, has 25). */
#define H5_MAX_COLUMNS 64

int cr_h5_table_units(hid_t d, const cr_h5_column *c, size_t nc, const char *description)
{
    const char *u[H5_MAX_COLUMNS];
    size_t n = nc < H5_MAX_COLUMNS ? nc : H5_MAX_COLUMNS;
    for (size_t i = 0; i < n; i++)
        u[i] = c[i].units;
    int e = cr_h5_attr_strings(d, "units", u, n);
    if (description)
        e |= cr_h5_attr_string(d, "description", description);
    return e;
}

int cr_h5_write_table(hid_t loc, const char *name, size_t size, const cr_h5_column *c, size_t nc,
                      const void *rows, size_t n, const char *description)
{
    hid_t t = cr_h5_compound_type(size, c, nc);
    if (t < 0)
        return -1;
    hsize_t dim = n;
    hid_t space = H5Screate_simple(1, &dim, NULL);
    hid_t d =
        space < 0 ? -1 : H5Dcreate2(loc, name, t, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int e = d < 0 || (n && H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0) ? -1 : 0;
    if (d >= 0) {
        e |= cr_h5_table_units(d, c, nc, description);
        if (H5Dclose(d) < 0)
            e = -1;
    }
    if (space >= 0)
        H5Sclose(space);
    H5Tclose(t);
    return e;
}

hid_t cr_h5_enum(const char *const *names, int n)
{
    hid_t t = H5Tenum_create(H5T_NATIVE_INT);
    for (int k = 0; t >= 0 && k < n; k++)
        if (H5Tenum_insert(t, names[k], &k) < 0) {
            H5Tclose(t);
            return -1;
        }
    return t;
}

int cr_h5_write_array(hid_t loc, const char *name, hid_t type, const void *v, int rank, size_t rows,
                      size_t cols, const char *units)
{
    hsize_t dims[2] = {rows, cols};
    hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, NULL);
    hid_t d =
        space < 0 ? -1 : H5Dcreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    size_t count = rank == 0 ? 1 : rows * (rank == 2 ? cols : 1);
    int e = d < 0 || (count && H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) ? -1 : 0;
    if (d >= 0 && units)
        e |= cr_h5_attr_string(d, "units", units);
    if (d >= 0 && H5Dclose(d) < 0)
        e = -1;
    if (space >= 0)
        H5Sclose(space);
    return e;
}

int cr_h5_write_text(hid_t loc, const char *name, const char *text, const char *what)
{
    const char *p = text ? text : "";
    size_t n = strlen(p);
    hid_t t = H5Tcopy(H5T_C_S1);
    int e = t < 0 || H5Tset_size(t, n ? n : 1) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0 ||
                    H5Tset_strpad(t, H5T_STR_NULLPAD) < 0
                ? -1
                : cr_h5_write_array(loc, name, t, n ? p : "", 0, 0, 0, what);
    if (t >= 0 && H5Tclose(t) < 0)
        e = -1;
    return e;
}

int cr_h5_write_doubles(hid_t loc, const char *name, const double *v, size_t rows, size_t cols,
                        const char *units)
{
    return cr_h5_write_array(loc, name, H5T_NATIVE_DOUBLE, v, cols ? 2 : 1, rows, cols, units);
}

/* ---- reading a file that may be corrupt or crafted (h5-util.h) ----------------------------------
 */

/* Object header chunks and bytes our parse follows before it gives up (a v1
 * header of a run file's root, ~30 attributes, is two chunks of ~2 KB). */
#define HDR_MAX_CHUNKS 64
#define HDR_MAX_CHUNK ((uint64_t)1 << 20)
/* A global heap collection holding one string of CR_H5_MAX_STRING bytes and
 * its neighbours. */
#define HEAP_MAX ((uint64_t)CR_H5_MAX_STRING + ((uint64_t)1 << 20))

int cr_h5_fail(cr_h5_reader *r, const char *name, const char *fmt, ...)
{
    if (!r->failed && r->msg && r->msglen) {
        char what[480];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        if (name)
            snprintf(r->msg, r->msglen, "%s: %s%s: %s", r->path,
                     name[0] == '/' || strncmp(name, "attribute ", 10) == 0 ? "" : "/", name, what);
        else
            snprintf(r->msg, r->msglen, "%s: %s", r->path, what);
    }
    r->failed = 1;
    return -1;
}

int cr_h5_reader_open(cr_h5_reader *r, const char *path, char *msg, size_t msglen)
{
    memset(r, 0, sizeof *r);
    r->path = path ? path : "(null)";
    r->file = -1;
    r->fd = -1;
    r->msg = msg;
    r->msglen = msglen;
    if (msg && msglen)
        msg[0] = '\0';
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the library never prints */
    struct stat sb;
    if (!path || !path[0] || stat(path, &sb) != 0)
        return cr_h5_fail(r, NULL, "cannot open: %s",
                          path && path[0] ? strerror(errno) : "no name");
    if (S_ISDIR(sb.st_mode))
        return cr_h5_fail(r, NULL, "is a directory, not a file");
    if (!S_ISREG(sb.st_mode))
        return cr_h5_fail(r, NULL, "not a regular file (a device, pipe or socket)");
    if (access(path, R_OK) != 0)
        return cr_h5_fail(r, NULL, "cannot open: %s", strerror(errno));
    if (H5Fis_hdf5(path) <= 0)
        return cr_h5_fail(r, NULL, "not an HDF5 file");
    /* strong close: every id a failed read left open goes with the file */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fapl_sec2(fapl) < 0 ||
        H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) {
        if (fapl >= 0)
            H5Pclose(fapl);
        return cr_h5_fail(r, NULL, "HDF5 cannot set up a file access");
    }
    r->file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (r->file < 0)
        return cr_h5_fail(r, NULL,
                          "not a readable HDF5 file (its superblock or root group is "
                          "damaged)");
    void *handle = NULL;
    hid_t fcpl = H5Fget_create_plist(r->file);
    size_t sa = 0, ss = 0;
    hsize_t ub = 0;
    int ok = fcpl >= 0 && H5Pget_sizes(fcpl, &sa, &ss) >= 0 && H5Pget_userblock(fcpl, &ub) >= 0;
    if (fcpl >= 0)
        H5Pclose(fcpl);
    if (!ok || H5Fget_vfd_handle(r->file, H5P_DEFAULT, &handle) < 0 || !handle ||
        fstat(*(int *)handle, &sb) != 0)
        return cr_h5_fail(r, NULL, "HDF5 cannot describe the open file");
    if (sa < 2 || sa > 8 || ss < 2 || ss > 8)
        return cr_h5_fail(r, NULL,
                          "addresses of %zu and lengths of %zu bytes: not a file cradle "
                          "writes (8 and 8)",
                          sa, ss);
    r->fd = *(int *)handle;
    r->size = (uint64_t)sb.st_size;
    r->base = ub;
    r->sa = (unsigned)sa;
    r->ss = (unsigned)ss;
    return 0;
}

void cr_h5_reader_close(cr_h5_reader *r)
{
    if (r && r->file >= 0)
        H5Fclose(r->file);
    if (r) {
        r->file = -1;
        r->fd = -1;
    }
}

/* @p n bytes at file address @p addr (HDF5's: after the user block); 0, or -1
 * outside the file or unreadable. */
static int raw_read(const cr_h5_reader *r, uint64_t addr, void *buf, size_t n)
{
    if (r->fd < 0 || addr > UINT64_MAX - r->base)
        return -1;
    uint64_t off = r->base + addr;
    if (off > r->size || n > r->size - off)
        return -1;
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(r->fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        got += (size_t)k;
    }
    return 0;
}

static uint64_t le(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned k = n; k-- > 0;)
        v = v << 8 | p[k];
    return v;
}

/* A variable-length string as stored: length, global heap collection, index. */
typedef struct {
    uint64_t len, addr, idx;
} vl_ref;

static int decode_ref(const cr_h5_reader *r, const unsigned char *p, size_t avail, vl_ref *v)
{
    if (avail < 8 + (size_t)r->sa)
        return -1;
    v->len = le(p, 4);
    v->addr = le(p + 4, r->sa);
    v->idx = le(p + 4 + r->sa, 4);
    return 0;
}

/* The global heap object @p v names exists, lies inside its collection, and
 * holds exactly v->len bytes (at most @p cap), in a collection that HDF5's
 * parse walks to its end (no object of size 0, none past the end). */
static int check_heap(cr_h5_reader *r, const char *name, const vl_ref *v, size_t cap)
{
    if (v->len > cap)
        return cr_h5_fail(r, name, "a string of %llu bytes, more than the %zu this reader takes",
                          (unsigned long long)v->len, cap);
    if (v->addr == 0) /* a null string: HDF5 reads nothing */
        return 0;
    size_t hdr = 8 + r->ss, objhdr = 8 + r->ss;
    unsigned char head[16];
    if (raw_read(r, v->addr, head, hdr) != 0)
        return cr_h5_fail(r, name, "its string lies outside the file (address %llu)",
                          (unsigned long long)v->addr);
    if (memcmp(head, "GCOL", 4) != 0 || head[4] != 1)
        return cr_h5_fail(r, name, "its string's global heap collection (address %llu) is damaged",
                          (unsigned long long)v->addr);
    uint64_t size = le(head + 8, r->ss);
    if (size < hdr || size > HEAP_MAX || v->addr > r->size || size > r->size - v->addr)
        return cr_h5_fail(r, name,
                          "its string's global heap collection (address %llu) claims %llu bytes "
                          "(file %llu bytes)",
                          (unsigned long long)v->addr, (unsigned long long)size,
                          (unsigned long long)r->size);
    unsigned char *c = malloc((size_t)size);
    if (!c)
        return cr_h5_fail(r, name, "out of memory");
    if (raw_read(r, v->addr, c, (size_t)size) != 0) {
        free(c);
        return cr_h5_fail(r, name, "its string's global heap collection cannot be read");
    }
    uint64_t p = hdr, osize = 0;
    int found = 0, bad = 0;
    while (p < size && !bad) {
        if (size - p < objhdr)
            break; /* the tail too short for an object: free space */
        uint64_t idx = le(c + p, 2), sz = le(c + p + 8, r->ss), need;
        if (idx > 0)
            need = sz > size ? UINT64_MAX : objhdr + ((sz + 7) & ~(uint64_t)7);
        else
            need = sz;
        if (need == 0 || need > size - p)
            bad = 1; /* HDF5 loops on 0, reads past the collection beyond */
        else if (idx == v->idx) {
            found = 1;
            osize = sz;
        }
        p += need;
    }
    free(c);
    if (bad)
        return cr_h5_fail(r, name, "its string's global heap collection (address %llu) is damaged",
                          (unsigned long long)v->addr);
    if (!found || v->idx == 0)
        return cr_h5_fail(r, name, "its string is not in its global heap collection (object %llu)",
                          (unsigned long long)v->idx);
    if (osize != v->len)
        return cr_h5_fail(r, name, "a string of %llu bytes whose heap object holds %llu",
                          (unsigned long long)v->len, (unsigned long long)osize);
    return 0;
}

/* An attribute message (docs: HDF5 file format, "Attribute Message"), its
 * parts located inside the message. */
typedef struct {
    const unsigned char *name, *type, *space, *data;
    size_t nlen, tlen, slen, dlen;
} attr_msg;

/* Bytes of one element of the datatype at @p t (its size field; 16 for a
 * variable-length element as stored: length, heap address, index). */
static uint64_t element_size(const cr_h5_reader *r, const unsigned char *t)
{
    return (t[0] & 0x0f) == 9 ? 8 + (uint64_t)r->sa : le(t + 4, 4);
}

/* ---- our own bounded parse of the header messages HDF5 decodes without bounds ---- */

/* Datatypes nest (compound members, arrays, enums, sequences) at most this
 * deep, with at most this many members each. */
#define DTYPE_MAX_DEPTH 8
#define DTYPE_MAX_MEMBERS 1024

static size_t pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* A NUL-terminated name starting at @p p within @p len bytes: its length
 * with the NUL, 0 when it does not end inside. */
static size_t name_len(const unsigned char *p, size_t len)
{
    const unsigned char *z = memchr(p, '\0', len);
    return z ? (size_t)(z - p) + 1 : 0;
}

/*
 * The encoded datatype at @p p (HDF5 file format, "Datatype Message") fits
 * in @p len bytes, recursively: classes 0-10, versions 1-3, every property
 * and member inside, names NUL-terminated inside, compound members inside
 * the compound's size, element sizes ≤ 2^20. Its encoded length in @p used.
 * HDF5 1.10's H5O_dtype_decode_helper reads member names and nested types
 * past the message (seen: a heap over-read decoding a compound).
 */
static int dtype_ok(const unsigned char *p, size_t len, int depth, size_t *used)
{
    if (len < 8 || depth > DTYPE_MAX_DEPTH)
        return 0;
    unsigned cls = p[0] & 0x0f, ver = p[0] >> 4;
    uint64_t size = le(p + 4, 4), nm = le(p + 1, 2);
    size_t o = 8, u;
    if (ver < 1 || ver > 3 || size > ((uint64_t)1 << 20))
        return 0;
    switch (cls) {
    case 0: /* integer, bitfield: offset, precision */
    case 4:
        if (len < 12 || size == 0 || le(p + 8, 2) + le(p + 10, 2) > 8 * size)
            return 0;
        o = 12;
        break;
    case 1: /* float: offset, precision, exponent and mantissa fields, bias */
        if (len < 20 || size == 0 || le(p + 8, 2) + le(p + 10, 2) > 8 * size ||
            p[12] + (uint64_t)p[13] > 8 * size || p[14] + (uint64_t)p[15] > 8 * size)
            return 0;
        o = 20;
        break;
    case 2: /* time */
        if (len < 10)
            return 0;
        o = 10;
        break;
    case 3: /* string */
    case 7: /* reference */
        if (size == 0)
            return 0;
        break;
    case 5: { /* opaque: a tag of p[1] bytes, padded */
        size_t tag = p[1];
        if (pad8(tag) > len - o)
            return 0;
        o += pad8(tag);
        break;
    }
    case 6: /* compound */
        if (nm == 0 || nm > DTYPE_MAX_MEMBERS || size == 0)
            return 0;
        for (uint64_t k = 0; k < nm; k++) {
            size_t n = name_len(p + o, len - o);
            if (n == 0)
                return 0;
            o += ver < 3 ? pad8(n) : n;
            if (o > len)
                return 0;
            uint64_t off;
            if (ver == 3) { /* the offset in as few bytes as the size needs */
                unsigned b = size < 256 ? 1 : size < 65536 ? 2 : size < 16777216 ? 3 : 4;
                if (len - o < b)
                    return 0;
                off = le(p + o, b);
                o += b;
            } else {
                if (len - o < 4)
                    return 0;
                off = le(p + o, 4);
                o += 4;
                if (ver == 1) { /* dimensionality, reserved, permutation, reserved, 4 dims */
                    if (len - o < 28 || p[o] > 4)
                        return 0;
                    o += 28;
                }
            }
            if (o > len || !dtype_ok(p + o, len - o, depth + 1, &u))
                return 0;
            if (off > size || le(p + o + 4, 4) > size - off)
                return 0; /* a member outside the compound */
            o += u;
        }
        break;
    case 8: { /* enum: base type, names, values */
        if (nm == 0 || nm > DTYPE_MAX_MEMBERS || !dtype_ok(p + o, len - o, depth + 1, &u))
            return 0;
        uint64_t bsize = le(p + o + 4, 4);
        o += u;
        for (uint64_t k = 0; k < nm; k++) {
            size_t n = name_len(p + o, len - o);
            if (n == 0)
                return 0;
            o += ver < 3 ? pad8(n) : n;
            if (o > len)
                return 0;
        }
        if (bsize == 0 || bsize > 16 || nm * bsize > len - o)
            return 0;
        o += (size_t)(nm * bsize);
        break;
    }
    case 9: /* variable-length: its base type */
        if (!dtype_ok(p + o, len - o, depth + 1, &u))
            return 0;
        o += u;
        break;
    case 10: { /* array: rank, dims (, permutations in version 2), base type */
        if (len - o < 4 || p[o] == 0 || p[o] > 32)
            return 0;
        size_t rank = p[o], need = ver < 3 ? 4 + 8 * rank : 1 + 4 * rank;
        if (need > len - o)
            return 0;
        o += need;
        if (!dtype_ok(p + o, len - o, depth + 1, &u))
            return 0;
        o += u;
        break;
    }
    default:
        return 0;
    }
    if (o > len)
        return 0;
    *used = o;
    return 1;
}

/* Dataspace message: version 1 or 2, rank ≤ 32, its dims inside. */
static int dspace_ok(const cr_h5_reader *r, const unsigned char *p, size_t len)
{
    if (len < 4 || (p[0] != 1 && p[0] != 2) || p[1] > 32 || (p[0] == 2 && p[3] > 2))
        return 0;
    size_t head = p[0] == 1 ? 8 : 4, rank = p[1];
    size_t per = r->ss * (1 + (p[2] & 1 ? 1 : 0)) + (p[0] == 1 && (p[2] & 2) ? 4 : 0);
    return head + rank * per <= len;
}

/* Layout message (versions 1-3): its fields inside, a compact dataset's data
 * inside the message. */
static int layout_ok(const cr_h5_reader *r, const unsigned char *p, size_t len)
{
    if (len < 2)
        return 0;
    if (p[0] == 3) {
        if (p[1] == 0) /* compact: size, data */
            return len >= 4 && le(p + 2, 2) <= len - 4;
        if (p[1] == 1) /* contiguous: address, size */
            return 2 + (size_t)r->sa + r->ss <= len;
        if (p[1] == 2) /* chunked: rank, address, dims */
            return len >= 3 && p[2] >= 1 && p[2] <= 33 &&
                   3 + (size_t)r->sa + 4 * (size_t)p[2] <= len;
        return 0;
    }
    if (p[0] == 1 || p[0] == 2) { /* rank, class, reserved, [address], dims, then the
                                   * chunk's element size or the compact data's size */
        if (len < 8 || p[1] < 1 || p[1] > 33 || p[2] > 2)
            return 0;
        size_t need = 8 + (p[2] ? r->sa : 0) + 4 * (size_t)p[1] + (p[2] != 1 ? 4 : 0);
        if (need > len)
            return 0;
        return p[2] != 0 || le(p + need - 4, 4) <= len - need;
    }
    return 0;
}

/* Fill value messages: the value's size inside the message. */
static int fill_ok(const unsigned char *p, size_t len, unsigned type)
{
    if (type == 0x04) /* old: size, value */
        return len >= 4 && le(p, 4) <= len - 4;
    if (len < 1)
        return 0;
    if (p[0] == 1 || p[0] == 2) { /* alloc time, write time, defined, [size, value] */
        if (len < 4)
            return 0;
        if (p[0] == 2 && !p[3])
            return 1;
        return len >= 8 && le(p + 4, 4) <= len - 8;
    }
    if (p[0] == 3) { /* flags, [size, value] */
        if (len < 2)
            return 0;
        if (!(p[1] & 0x20))
            return 1;
        return len >= 6 && le(p + 2, 4) <= len - 6;
    }
    return 0;
}

/* Filter pipeline message: every filter's name and values inside. */
static int filters_ok(const unsigned char *p, size_t len)
{
    if (len < 2 || (p[0] != 1 && p[0] != 2) || p[1] > 32)
        return 0;
    size_t o = p[0] == 1 ? 8 : 2;
    for (unsigned k = 0; k < p[1]; k++) {
        if (o + 2 > len)
            return 0;
        unsigned id = (unsigned)le(p + o, 2);
        size_t nlen = 0;
        o += 2;
        if (p[0] == 1 || id >= 256) {
            if (o + 2 > len)
                return 0;
            nlen = (size_t)le(p + o, 2);
            o += 2;
        }
        if (o + 4 > len)
            return 0;
        size_t ncv = (size_t)le(p + o + 2, 2);
        o += 4;
        size_t n = p[0] == 1 ? pad8(nlen) : nlen;
        if (n > len - o || (nlen && name_len(p + o, nlen) == 0))
            return 0;
        o += n;
        size_t cv = 4 * ncv + (p[0] == 1 && (ncv & 1) ? 4 : 0);
        if (cv > len - o)
            return 0;
        o += cv;
    }
    return 1;
}

/* One header message of a type HDF5 decodes when it opens an object, checked
 * before it does: @p why set when it is damaged. */
static const char *message_ok(const cr_h5_reader *r, unsigned type, const unsigned char *d,
                              size_t ms)
{
    size_t used;
    switch (type) {
    case 0x01:
        return dspace_ok(r, d, ms) ? NULL : "a damaged dataspace message";
    case 0x03:
        return dtype_ok(d, ms, 0, &used) ? NULL : "a damaged datatype message";
    case 0x04:
    case 0x05:
        return fill_ok(d, ms, type) ? NULL : "a damaged fill value message";
    case 0x08:
        return layout_ok(r, d, ms) ? NULL : "a damaged layout message";
    case 0x0b:
        return filters_ok(d, ms) ? NULL : "a damaged filter pipeline message";
    default:
        return NULL;
    }
}

/* Parses and checks the structure of one attribute message before HDF5 is
 * let near it: the three sizes inside the message, a NUL-terminated name, a
 * datatype among those cradle writes (integer, float, string, variable-length
 * string) with consistent sizes, a dataspace of rank ≤ 2, and as many data
 * bytes as elements need (HDF5 1.10 copies that many without a bound). 0, or
 * -1 with @p why set. */
static int attr_parse(const cr_h5_reader *r, const unsigned char *d, size_t ms, attr_msg *a,
                      const char **why)
{
    *why = "a damaged attribute message";
    if (ms < 8)
        return -1;
    unsigned ver = d[0], flags = d[1];
    a->nlen = (size_t)le(d + 2, 2);
    a->tlen = (size_t)le(d + 4, 2);
    a->slen = (size_t)le(d + 6, 2);
    size_t p = ver == 3 ? 9 : 8;
    if (ver < 1 || ver > 3 || p > ms)
        return -1;
    if (ver >= 2 && (flags & 3)) {
        *why = "a shared datatype or dataspace (cradle writes none)";
        return -1;
    }
#define PAD(n) (ver == 1 ? (((n) + 7) & ~(size_t)7) : (n))
    if (a->nlen == 0 || PAD(a->nlen) > ms - p)
        return -1;
    a->name = d + p;
    p += PAD(a->nlen);
    if (PAD(a->tlen) > ms - p)
        return -1;
    a->type = d + p;
    p += PAD(a->tlen);
    if (PAD(a->slen) > ms - p)
        return -1;
    a->space = d + p;
    p += PAD(a->slen);
#undef PAD
    a->data = d + p;
    a->dlen = ms - p;
    if (memchr(a->name, '\0', a->nlen) != a->name + a->nlen - 1) {
        *why = "an attribute name that is not one NUL-terminated string";
        return -1;
    }
    /* datatype: structurally sound, then one of the classes cradle writes */
    const unsigned char *t = a->type;
    size_t tused;
    if (!dtype_ok(t, a->tlen, 0, &tused)) {
        *why = "an attribute whose datatype is damaged";
        return -1;
    }
    unsigned cls = a->tlen >= 8 ? t[0] & 0x0f : 99, tv = a->tlen >= 8 ? t[0] >> 4 : 0;
    uint64_t size = a->tlen >= 8 ? le(t + 4, 4) : 0;
    int ok = tv >= 1 && tv <= 3;
    if (cls == 0) /* integer: bit offset and precision inside the size */
        ok = ok && a->tlen >= 12 && size >= 1 && size <= 16 &&
             le(t + 8, 2) + le(t + 10, 2) <= 8 * size;
    else if (cls == 1) /* float: every field's bits inside the size */
        ok = ok && a->tlen >= 20 && size >= 2 && size <= 16 &&
             le(t + 8, 2) + le(t + 10, 2) <= 8 * size && t[12] + (uint64_t)t[13] <= 8 * size &&
             t[14] + (uint64_t)t[15] <= 8 * size;
    else if (cls == 3) /* fixed-length string */
        ok = ok && size >= 1 && size <= CR_H5_MAX_STRING;
    else if (cls == 9) /* variable-length string of 1-byte characters, whose stored
                        * element (length, heap address, index) is the size the
                        * type says: HDF5 keeps `size` bytes per element of the
                        * message and reads 8 + sa of each (an over-read and an
                        * unchecked heap reference otherwise, fuzz-table) */
        ok = ok && (t[1] & 0x0f) == 1 && a->tlen >= 16 && (t[8] & 0x0f) == 0 &&
             le(t + 12, 4) == 1 && size == 8 + (uint64_t)r->sa;
    else
        ok = 0;
    if (!ok) {
        *why = "an attribute whose datatype is damaged or not one cradle writes";
        return -1;
    }
    /* dataspace: version 1 (rank, flags, 5 reserved) or 2 (rank, flags, type) */
    const unsigned char *s = a->space;
    if (a->slen < 4 || (s[0] != 1 && s[0] != 2) || s[1] > 2 || (s[0] == 2 && s[3] > 2)) {
        *why = "an attribute whose dataspace is damaged or of rank above 2";
        return -1;
    }
    size_t head = s[0] == 1 ? 8 : 4, rank = s[1];
    size_t need = head + rank * r->ss * ((s[2] & 1) ? 2 : 1);
    if (need > a->slen) {
        *why = "an attribute whose dataspace is damaged";
        return -1;
    }
    uint64_t points = s[0] == 2 && s[3] == 2 ? 0 : 1;
    for (size_t k = 0; k < rank; k++) {
        uint64_t n = le(s + head + k * r->ss, r->ss);
        if (n > ((uint64_t)1 << 20) || points > ((uint64_t)1 << 20) / (n ? n : 1)) {
            *why = "an attribute of more than 2^20 elements";
            return -1;
        }
        points *= n;
    }
    if (points * element_size(r, t) > a->dlen) {
        *why = "an attribute message shorter than its data";
        return -1;
    }
    return 0;
}

/* Calls @p visit for every attribute message of the version 1 object header
 * at @p oaddr, after checking each one's structure (attr_parse), following
 * continuation chunks (at most HDR_MAX_CHUNKS of HDR_MAX_CHUNK bytes). 0, or
 * -1 recorded. */
static int walk_attrs(cr_h5_reader *r, const char *where, uint64_t oaddr,
                      int (*visit)(cr_h5_reader *, const char *, const attr_msg *, void *),
                      void *ctx)
{
    unsigned char pre[16];
    if (raw_read(r, oaddr, pre, sizeof pre) != 0)
        return cr_h5_fail(r, where, "its object header lies outside the file");
    if (memcmp(pre, "OHDR", 4) == 0)
        return cr_h5_fail(r, where,
                          "a version 2 object header; cradle reads attributes from the version 1 "
                          "headers it writes");
    if (pre[0] != 1)
        return cr_h5_fail(r, where, "its object header is damaged (version %u)", pre[0]);
    uint64_t at[HDR_MAX_CHUNKS], len[HDR_MAX_CHUNKS];
    int n = 1;
    at[0] = oaddr + 16;
    len[0] = le(pre + 8, 4);
    for (int k = 0; k < n; k++) {
        if (len[k] > HDR_MAX_CHUNK)
            return cr_h5_fail(r, where, "its object header is damaged (a chunk of %llu bytes)",
                              (unsigned long long)len[k]);
        unsigned char *b = malloc(len[k] ? (size_t)len[k] : 1);
        if (!b)
            return cr_h5_fail(r, where, "out of memory");
        if (raw_read(r, at[k], b, (size_t)len[k]) != 0) {
            free(b);
            return cr_h5_fail(r, where, "its object header lies outside the file");
        }
        const char *why = NULL;
        for (size_t off = 0; !why && len[k] - off >= 8;) {
            unsigned type = (unsigned)le(b + off, 2), mflags = b[off + 4];
            size_t ms = (size_t)le(b + off + 2, 2);
            const unsigned char *d = b + off + 8;
            attr_msg a;
            if (ms > len[k] - off - 8)
                why = "its object header is damaged (a message past its chunk)";
            else if (type == 0x10) { /* continuation: another chunk */
                if (ms < (size_t)r->sa + r->ss || n == HDR_MAX_CHUNKS)
                    why = "its object header is damaged (continuation)";
                else {
                    at[n] = le(d, r->sa);
                    len[n++] = le(d + r->sa, r->ss);
                }
            } else if (type == 0x15)
                why = "attributes in dense storage (cradle writes them in the header)";
            else if (mflags & 2) {
                if (type != 0x03 && type != 0x0c) /* shared: a reference, not the message */
                    why = "a shared header message (cradle writes none)";
            } else if ((why = message_ok(r, type, d, ms)) != NULL)
                ;
            else if (type == 0x0c) {
                if (mflags & 2)
                    why = "a shared attribute message (cradle writes none)";
                else {
                    const char *bad = NULL;
                    if (attr_parse(r, d, ms, &a, &bad) != 0)
                        why = bad;
                    else if (visit(r, where, &a, ctx) != 0) {
                        free(b);
                        return -1;
                    }
                }
            }
            off += 8 + ms;
        }
        free(b);
        if (why)
            return cr_h5_fail(r, where, "%s", why);
    }
    return 0;
}

/* The object header of @p obj, its attributes checked (walk_attrs): its address. */
static int object_header(cr_h5_reader *r, hid_t obj, const char *where, uint64_t *addr)
{
    H5O_info_t info;
    if (H5Oget_info2(obj, &info, H5O_INFO_BASIC) < 0)
        return cr_h5_fail(r, where, "HDF5 cannot locate its object header");
    *addr = info.addr;
    return 0;
}

static int no_visit(cr_h5_reader *r, const char *where, const attr_msg *a, void *ctx)
{
    (void)r, (void)where, (void)a, (void)ctx;
    return 0;
}

/* Checks an object's attribute messages before HDF5 decodes them (it decodes
 * them all to find one by name). */
static int check_attrs(cr_h5_reader *r, hid_t obj, const char *where)
{
    uint64_t addr = 0;
    return object_header(r, obj, where, &addr) || walk_attrs(r, where, addr, no_visit, NULL) ? -1
                                                                                             : 0;
}

typedef struct {
    const char *attr;
    size_t cap;
    int found;
} vl_find;

/* The variable-length string attribute asked for: scalar, its heap object checked. */
static int visit_vl(cr_h5_reader *r, const char *where, const attr_msg *a, void *ctx)
{
    vl_find *f = ctx;
    if (strcmp((const char *)a->name, f->attr) != 0)
        return 0;
    const unsigned char *t = a->type, *s = a->space;
    if ((t[0] & 0x0f) != 9 || s[1] != 0 || (s[0] == 2 && s[3] != 0))
        return cr_h5_fail(r, where, "not a scalar variable-length string");
    vl_ref v;
    if (decode_ref(r, a->data, a->dlen, &v) != 0)
        return cr_h5_fail(r, where, "damaged");
    f->found = 1;
    return check_heap(r, where, &v, f->cap);
}

/* Checks every attribute message named @p attr in the object header at
 * @p oaddr, with the heap object its string names. */
static int check_attr_string(cr_h5_reader *r, const char *where, uint64_t oaddr, const char *attr,
                             size_t cap)
{
    vl_find f = {attr, cap, 0};
    if (walk_attrs(r, where, oaddr, visit_vl, &f) != 0)
        return -1;
    if (!f.found)
        return cr_h5_fail(r, where,
                          "not found where cradle writes it (a compact attribute of a "
                          "version 1 header)");
    return 0;
}

typedef struct {
    char **names;
    size_t max, n;
} name_list;

static int visit_name(cr_h5_reader *r, const char *where, const attr_msg *a, void *ctx)
{
    name_list *l = ctx;
    if (l->n == l->max)
        return 0;
    if (!(l->names[l->n] = strdup((const char *)a->name)))
        return cr_h5_fail(r, where, "out of memory");
    l->n++;
    return 0;
}

int cr_h5_attr_names(cr_h5_reader *r, hid_t obj, const char *objname, char **names, size_t max,
                     size_t *n)
{
    char where[300];
    snprintf(where, sizeof where, "%s", objname);
    name_list l = {names, max, 0};
    uint64_t addr = 0;
    int e = object_header(r, obj, where, &addr) || walk_attrs(r, where, addr, visit_name, &l);
    *n = l.n;
    return e ? -1 : 0;
}

/* "/obj: attribute 'x'" for messages. */
static const char *attr_where(char *buf, size_t len, const char *objname, const char *attr)
{
    if (strcmp(objname, "/") == 0)
        snprintf(buf, len, "attribute '%s'", attr);
    else
        snprintf(buf, len, "%s%s: attribute '%s'", objname[0] == '/' ? "" : "/", objname, attr);
    return buf;
}

int cr_h5_has(cr_h5_reader *r, const char *name)
{
    char part[512];
    size_t n = strlen(name);
    if (n >= sizeof part)
        return cr_h5_fail(r, name, "path too long");
    for (size_t k = 1; k <= n; k++) {
        if (k < n && name[k] != '/')
            continue;
        memcpy(part, name, k);
        part[k] = '\0';
        htri_t e = H5Lexists(r->file, part, H5P_DEFAULT);
        if (e < 0)
            return cr_h5_fail(r, part, "HDF5 cannot look it up (a damaged group)");
        if (e == 0)
            return 0;
        e = H5Oexists_by_name(r->file, part, H5P_DEFAULT);
        if (e < 0)
            return cr_h5_fail(r, part, "HDF5 cannot open it (a damaged link)");
        if (e == 0)
            return 0;
    }
    return 1;
}

static int numeric_class(H5T_class_t c)
{
    return c == H5T_INTEGER || c == H5T_FLOAT || c == H5T_ENUM;
}

/* A number type cradle writes: an IEEE binary32/64 float, or an integer of 1,
 * 2, 4 or 8 bytes using every bit (an enum over one). HDF5 converts any float
 * layout a file describes, so a damaged one (a mantissa of 11 bits, an
 * exponent past the precision) reads as numbers from nowhere: zeros, which the
 * comparator turned into an ok over inf (fuzz-runfile). */
static int standard_number(hid_t t)
{
    H5T_class_t c = H5Tget_class(t);
    if (c == H5T_ENUM) {
        hid_t base = H5Tget_super(t);
        int ok = base >= 0 && H5Tget_class(base) == H5T_INTEGER && standard_number(base);
        if (base >= 0)
            H5Tclose(base);
        return ok;
    }
    if (c == H5T_FLOAT)
        return H5Tequal(t, H5T_IEEE_F64LE) > 0 || H5Tequal(t, H5T_IEEE_F64BE) > 0 ||
               H5Tequal(t, H5T_IEEE_F32LE) > 0 || H5Tequal(t, H5T_IEEE_F32BE) > 0;
    if (c == H5T_INTEGER) {
        size_t n = H5Tget_size(t);
        return (n == 1 || n == 2 || n == 4 || n == 8) && H5Tget_precision(t) == 8 * n &&
               H5Tget_offset(t) == 0;
    }
    return 0;
}

/* Opens dataset @p name holding @p kind; its file type in @p ft (caller closes both). */
static hid_t open_dataset(cr_h5_reader *r, const char *name, cr_h5_kind kind, hid_t *ft)
{
    *ft = -1;
    int there = cr_h5_has(r, name);
    if (there <= 0) {
        if (there == 0)
            cr_h5_fail(r, name, "missing");
        return -1;
    }
    H5O_info_t info;
    if (H5Oget_info_by_name2(r->file, name, &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0 ||
        info.type != H5O_TYPE_DATASET) {
        cr_h5_fail(r, name, "not a dataset");
        return -1;
    }
    /* its header messages checked before HDF5 decodes them */
    if (walk_attrs(r, name, info.addr, no_visit, NULL) != 0)
        return -1;
    hid_t d = H5Dopen2(r->file, name, H5P_DEFAULT);
    hid_t t = d < 0 ? -1 : H5Dget_type(d);
    H5T_class_t c = t < 0 ? H5T_NO_CLASS : H5Tget_class(t);
    size_t size = t < 0 ? 0 : H5Tget_size(t);
    const char *want = NULL;
    if (d < 0 || t < 0)
        want = "HDF5 cannot open it (damaged)";
    else if (kind == CR_H5_NUMBERS && (!numeric_class(c) || !standard_number(t)))
        want = "does not hold numbers of a type cradle writes (IEEE floats, whole integers)";
    else if (kind == CR_H5_STRINGS && (c != H5T_STRING || H5Tis_variable_str(t) != 0 || size == 0 ||
                                       size > CR_H5_MAX_STRING))
        want = "does not hold fixed-length strings";
    else if (kind == CR_H5_ROWS && c != H5T_COMPOUND)
        want = "is not a table (a compound dataset)";
    if (want) {
        cr_h5_fail(r, name, "%s", want);
        if (t >= 0)
            H5Tclose(t);
        if (d >= 0)
            H5Dclose(d);
        return -1;
    }
    *ft = t;
    return d;
}

/* Rank and extents of an open dataset (rank ≤ 2, not a null dataspace). */
static int dataset_extent(cr_h5_reader *r, const char *name, hid_t d, int *rank, hsize_t dims[2])
{
    hid_t s = H5Dget_space(d);
    H5S_class_t sc = s < 0 ? H5S_NO_CLASS : H5Sget_simple_extent_type(s);
    int nd = s < 0 ? -1 : H5Sget_simple_extent_ndims(s);
    hsize_t dd[H5S_MAX_RANK] = {0};
    int e = s < 0 || (sc != H5S_SCALAR && sc != H5S_SIMPLE) || nd < 0 || nd > 2 ||
            H5Sget_simple_extent_dims(s, dd, NULL) < 0;
    if (s >= 0)
        H5Sclose(s);
    if (e)
        return cr_h5_fail(r, name, "its dataspace is damaged or not what cradle writes (rank %d)",
                          nd);
    *rank = nd;
    dims[0] = nd > 0 ? dd[0] : 1;
    dims[1] = nd > 1 ? dd[1] : 1;
    return 0;
}

int cr_h5_shape(cr_h5_reader *r, const char *name, cr_h5_kind kind, int *rank, hsize_t dims[2])
{
    hid_t ft, d = open_dataset(r, name, kind, &ft);
    if (d < 0)
        return -1;
    int e = dataset_extent(r, name, d, rank, dims);
    H5Tclose(ft);
    H5Dclose(d);
    return e;
}

static void shape_text(char *buf, size_t len, int rank, const hsize_t *dims)
{
    if (rank == 0)
        snprintf(buf, len, "a scalar");
    else if (rank == 1)
        snprintf(buf, len, "(%llu)", (unsigned long long)dims[0]);
    else
        snprintf(buf, len, "(%llu, %llu)", (unsigned long long)dims[0],
                 (unsigned long long)dims[1]);
}

/* An open dataset has exactly @p rank and @p dims; the element count in @p count. */
static int exact_shape(cr_h5_reader *r, const char *name, hid_t d, int rank, const hsize_t *dims,
                       size_t *count)
{
    int have;
    hsize_t got[2];
    if (dataset_extent(r, name, d, &have, got) != 0)
        return -1;
    int same = have == rank;
    for (int k = 0; same && k < rank; k++)
        same = got[k] == dims[k];
    if (!same) {
        char a[64], b[64];
        shape_text(a, sizeof a, have, got);
        shape_text(b, sizeof b, rank, dims);
        return cr_h5_fail(r, name, "shape %s where %s is expected", a, b);
    }
    uint64_t n = 1;
    for (int k = 0; k < rank; k++) {
        if (dims[k] && n > UINT64_MAX / dims[k])
            return cr_h5_fail(r, name, "too large");
        n *= dims[k];
    }
    *count = (size_t)n;
    return 0;
}

int cr_h5_read_numbers(cr_h5_reader *r, const char *name, hid_t memtype, void *buf, int rank,
                       const hsize_t *dims)
{
    hid_t ft, d = open_dataset(r, name, CR_H5_NUMBERS, &ft);
    if (d < 0)
        return -1;
    size_t n = 0;
    int e = exact_shape(r, name, d, rank, dims, &n);
    size_t es = H5Tget_size(memtype) > H5Tget_size(ft) ? H5Tget_size(memtype) : H5Tget_size(ft);
    if (e == 0 && n > CR_H5_MAX_READ_BYTES / es)
        e = cr_h5_fail(r, name, "more than %zu bytes", CR_H5_MAX_READ_BYTES);
    if (e == 0 && n && H5Dread(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        e = cr_h5_fail(r, name, "HDF5 cannot read it (damaged, or not numbers of that kind)");
    H5Tclose(ft);
    H5Dclose(d);
    return e;
}

/* Rows wider than this are not a table cradle writes (its widest, /contacts,
 * is ~150 bytes). */
#define ROW_MAX_BYTES 4096
#define ROW_MAX_MEMBERS 128

/* A compound file type HDF5 can convert without trusting a damaged layout:
 * its size, and every member inside it (H5T__conv_struct copies members by
 * the offsets and sizes the file gives), each a number, a fixed string or an
 * array of numbers. */
static int check_compound(cr_h5_reader *r, const char *name, hid_t ft)
{
    size_t size = H5Tget_size(ft);
    int n = H5Tget_nmembers(ft);
    if (size == 0 || size > ROW_MAX_BYTES || n < 1 || n > ROW_MAX_MEMBERS)
        return cr_h5_fail(r, name, "rows of %zu bytes and %d columns: not a table cradle writes",
                          size, n);
    for (int k = 0; k < n; k++) {
        hid_t mt = H5Tget_member_type(ft, (unsigned)k);
        size_t off = H5Tget_member_offset(ft, (unsigned)k), ms = mt < 0 ? 0 : H5Tget_size(mt);
        H5T_class_t c = mt < 0 ? H5T_NO_CLASS : H5Tget_class(mt);
        int ok = mt >= 0 && ms > 0 && off < size && ms <= size - off;
        if (ok && c == H5T_ARRAY) {
            hid_t base = H5Tget_super(mt);
            ok = base >= 0 && numeric_class(H5Tget_class(base)) && standard_number(base);
            if (base >= 0)
                H5Tclose(base);
        } else if (ok)
            ok = numeric_class(c) || (c == H5T_STRING && H5Tis_variable_str(mt) == 0);
        if (ok && numeric_class(c))
            ok = standard_number(mt);
        if (mt >= 0)
            H5Tclose(mt);
        if (!ok)
            return cr_h5_fail(r, name, "column %d is damaged or not one cradle writes", k);
    }
    return 0;
}

/* All @p n elements of an open dataset into @p buf as memory type @p mt
 * (closed here; −1: the type could not be made). */
static int read_whole(cr_h5_reader *r, const char *name, hid_t d, hid_t mt, size_t n, void *buf)
{
    int e = mt < 0 || (n && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0);
    if (mt >= 0)
        H5Tclose(mt);
    return e ? cr_h5_fail(r, name, "HDF5 cannot read it (damaged)") : 0;
}

void *cr_h5_read_rows(cr_h5_reader *r, const char *name, size_t size, const cr_h5_column *c,
                      size_t nc, size_t cap, size_t *n)
{
    *n = 0;
    hid_t ft, d = open_dataset(r, name, CR_H5_ROWS, &ft);
    if (d < 0)
        return NULL;
    int rank;
    hsize_t dims[2];
    int e = dataset_extent(r, name, d, &rank, dims);
    if (e == 0 && rank != 1)
        e = cr_h5_fail(r, name, "a table of rank %d (1 expected)", rank);
    if (e == 0)
        e = check_compound(r, name, ft);
    size_t fsize = e ? 0 : H5Tget_size(ft);
    if (e == 0 && (dims[0] > cap || dims[0] > CR_H5_MAX_READ_BYTES / (fsize > size ? fsize : size)))
        e = cr_h5_fail(r, name, "%llu rows, more than the %zu this reader takes",
                       (unsigned long long)dims[0], cap);
    for (size_t k = 0; e == 0 && k < nc; k++) {
        int m = H5Tget_member_index(ft, c[k].name);
        hid_t mt = m < 0 ? -1 : H5Tget_member_type(ft, (unsigned)m);
        if (m < 0)
            e = cr_h5_fail(r, name, "no column '%s'", c[k].name);
        else if (mt < 0 || !numeric_class(H5Tget_class(mt)) || H5Tget_size(mt) > 16)
            e = cr_h5_fail(r, name, "column '%s' does not hold numbers", c[k].name);
        if (mt >= 0)
            H5Tclose(mt);
    }
    void *rows = NULL;
    if (e == 0) {
        rows = calloc(dims[0] ? (size_t)dims[0] : 1, size);
        if (!rows)
            e = cr_h5_fail(r, name, "out of memory");
    }
    if (e == 0)
        e = read_whole(r, name, d, cr_h5_compound_type(size, c, nc), (size_t)dims[0], rows);
    H5Tclose(ft);
    H5Dclose(d);
    if (e) {
        free(rows);
        return NULL;
    }
    *n = (size_t)dims[0];
    return rows;
}

/* A native string type like the file's (same character set), @p size bytes. */
static hid_t string_memtype(hid_t ft, size_t size, H5T_str_t pad)
{
    H5T_cset_t cs = H5Tget_cset(ft);
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, size) < 0 || H5Tset_strpad(t, pad) < 0 ||
                   (cs != H5T_CSET_ERROR && H5Tset_cset(t, cs) < 0))) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

char *cr_h5_read_strings(cr_h5_reader *r, const char *name, int rank, const hsize_t *dims,
                         size_t len)
{
    hid_t ft, d = open_dataset(r, name, CR_H5_STRINGS, &ft);
    if (d < 0)
        return NULL;
    size_t n = 0;
    int e = exact_shape(r, name, d, rank, dims, &n);
    size_t fsize = H5Tget_size(ft); /* HDF5 converts through a buffer of the larger */
    if (e == 0 && n > CR_H5_MAX_READ_BYTES / (fsize > len ? fsize : len))
        e = cr_h5_fail(r, name, "%zu strings of %zu bytes: more than %zu bytes", n, fsize,
                       CR_H5_MAX_READ_BYTES);
    char *buf = e ? NULL : calloc(n ? n : 1, len);
    if (e == 0 && !buf)
        e = cr_h5_fail(r, name, "out of memory");
    if (e == 0)
        e = read_whole(r, name, d, string_memtype(ft, len, H5T_STR_NULLTERM), n, buf);
    /* a slot as long as the type holds no NUL when the text filled it (HDF5
     * copies equal types unconverted) */
    for (size_t k = 0; e == 0 && k < n; k++)
        buf[k * len + len - 1] = '\0';
    H5Tclose(ft);
    H5Dclose(d);
    if (e) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* A scalar variable-length string of an open attribute or dataset, checked first. */
static char *read_vl(cr_h5_reader *r, hid_t o, int dataset, hid_t ft, const char *where)
{
    hid_t mt = cr_h5_utf8_type();
    if (mt >= 0 && H5Tget_cset(ft) == H5T_CSET_ASCII)
        H5Tset_cset(mt, H5T_CSET_ASCII);
    char *s = NULL, *out = NULL;
    int e = mt < 0 ||
            (dataset ? H5Dread(o, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, &s) : H5Aread(o, mt, &s)) < 0;
    if (e)
        cr_h5_fail(r, where, "HDF5 cannot read the string (damaged)");
    else if (!(out = strdup(s ? s : "")))
        cr_h5_fail(r, where, "out of memory");
    if (s)
        H5free_memory(s);
    if (mt >= 0)
        H5Tclose(mt);
    return out;
}

/* A fixed-length string of @p n elements' first (scalar) of an open attribute or dataset. */
static char *read_fixed(cr_h5_reader *r, hid_t o, int dataset, hid_t ft, size_t cap,
                        const char *where)
{
    size_t size = H5Tget_size(ft);
    if (size == 0 || size > cap) {
        cr_h5_fail(r, where, "a string of %zu bytes, more than the %zu this reader takes", size,
                   cap);
        return NULL;
    }
    char *buf = calloc(size + 1, 1);
    hid_t mt = string_memtype(ft, size, H5T_STR_NULLPAD);
    int e =
        !buf || mt < 0 ||
        (dataset ? H5Dread(o, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) : H5Aread(o, mt, buf)) < 0;
    if (mt >= 0)
        H5Tclose(mt);
    if (e) {
        cr_h5_fail(r, where, buf ? "HDF5 cannot read the string (damaged)" : "out of memory");
        free(buf);
        return NULL;
    }
    return buf;
}

/* One element: a scalar, or a simple dataspace of one point. Scalar only for
 * variable-length strings (what the heap check parses). */
static int one_element(hid_t space, int scalar_only)
{
    H5S_class_t c = space < 0 ? H5S_NO_CLASS : H5Sget_simple_extent_type(space);
    if (c == H5S_SCALAR)
        return 1;
    return !scalar_only && c == H5S_SIMPLE && H5Sget_simple_extent_npoints(space) == 1;
}

char *cr_h5_read_text(cr_h5_reader *r, const char *name, size_t cap)
{
    int there = cr_h5_has(r, name);
    if (there <= 0) {
        if (there == 0)
            cr_h5_fail(r, name, "missing");
        return NULL;
    }
    H5O_info_t info;
    if (H5Oget_info_by_name2(r->file, name, &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0 ||
        info.type != H5O_TYPE_DATASET) {
        cr_h5_fail(r, name, "not a dataset");
        return NULL;
    }
    if (walk_attrs(r, name, info.addr, no_visit, NULL) != 0)
        return NULL;
    hid_t d = H5Dopen2(r->file, name, H5P_DEFAULT);
    hid_t ft = d < 0 ? -1 : H5Dget_type(d), sp = d < 0 ? -1 : H5Dget_space(d);
    int vl = ft < 0 ? -1 : H5Tis_variable_str(ft);
    char *out = NULL;
    if (d < 0 || ft < 0 || sp < 0)
        cr_h5_fail(r, name, "HDF5 cannot open it (damaged)");
    else if (H5Tget_class(ft) != H5T_STRING || vl < 0)
        cr_h5_fail(r, name, "does not hold a string");
    else if (!one_element(sp, vl > 0))
        cr_h5_fail(r, name, "holds more than one string");
    else if (vl == 0)
        out = read_fixed(r, d, 1, ft, cap, name);
    else {
        /* the reference sits in the dataset's raw data (contiguous, as HDF5
         * stores a scalar by default) */
        haddr_t off = H5Dget_offset(d);
        unsigned char raw[16];
        vl_ref v;
        if (off == HADDR_UNDEF || off < r->base || H5Dget_storage_size(d) != 8 + (hsize_t)r->sa)
            cr_h5_fail(r, name, "a string not stored as cradle stores it (contiguous)");
        else if (raw_read(r, off - r->base, raw, 8 + r->sa) != 0 ||
                 decode_ref(r, raw, 8 + r->sa, &v) != 0)
            cr_h5_fail(r, name, "its string lies outside the file");
        else if (check_heap(r, name, &v, cap) == 0)
            out = read_vl(r, d, 1, ft, name);
    }
    if (sp >= 0)
        H5Sclose(sp);
    if (ft >= 0)
        H5Tclose(ft);
    if (d >= 0)
        H5Dclose(d);
    return out;
}

/* Opens attribute @p attr of @p obj: 1 (in *a, *ft, *sp), 0 absent, -1 recorded. */
static int open_attr(cr_h5_reader *r, hid_t obj, const char *where, const char *attr, hid_t *a,
                     hid_t *ft, hid_t *sp)
{
    *a = *ft = *sp = -1;
    /* HDF5 decodes every attribute message of the header to find one by name */
    if (check_attrs(r, obj, where) != 0)
        return -1;
    htri_t e = H5Aexists(obj, attr);
    if (e < 0)
        return cr_h5_fail(r, where, "HDF5 cannot look it up (a damaged object header)");
    if (e == 0)
        return 0;
    *a = H5Aopen(obj, attr, H5P_DEFAULT);
    *ft = *a < 0 ? -1 : H5Aget_type(*a);
    *sp = *a < 0 ? -1 : H5Aget_space(*a);
    if (*a < 0 || *ft < 0 || *sp < 0)
        return cr_h5_fail(r, where, "HDF5 cannot open it (damaged)");
    return 1;
}

static void close_attr(hid_t a, hid_t ft, hid_t sp)
{
    if (sp >= 0)
        H5Sclose(sp);
    if (ft >= 0)
        H5Tclose(ft);
    if (a >= 0)
        H5Aclose(a);
}

int cr_h5_attr_text(cr_h5_reader *r, hid_t obj, const char *objname, const char *attr, size_t cap,
                    char **out)
{
    char where[300];
    attr_where(where, sizeof where, objname, attr);
    *out = NULL;
    hid_t a, ft, sp;
    int rc = open_attr(r, obj, where, attr, &a, &ft, &sp);
    if (rc == 1) {
        int vl = H5Tis_variable_str(ft);
        H5O_info_t info;
        if (H5Tget_class(ft) != H5T_STRING || vl < 0)
            rc = cr_h5_fail(r, where, "not a string");
        else if (!one_element(sp, vl > 0))
            rc = cr_h5_fail(r, where, "holds more than one string");
        else if (vl == 0)
            rc = (*out = read_fixed(r, a, 0, ft, cap, where)) ? 1 : -1;
        else if (H5Oget_info2(obj, &info, H5O_INFO_BASIC) < 0)
            rc = cr_h5_fail(r, where, "HDF5 cannot locate its object header");
        else if (check_attr_string(r, where, info.addr, attr, cap) != 0)
            rc = -1;
        else
            rc = (*out = read_vl(r, a, 0, ft, where)) ? 1 : -1;
    }
    close_attr(a, ft, sp);
    return rc;
}

static int attr_number(cr_h5_reader *r, hid_t obj, const char *objname, const char *attr,
                       int integer, hid_t memtype, void *out)
{
    char where[300];
    attr_where(where, sizeof where, objname, attr);
    hid_t a, ft, sp;
    int rc = open_attr(r, obj, where, attr, &a, &ft, &sp);
    if (rc == 1) {
        H5T_class_t c = H5Tget_class(ft);
        if (!(c == H5T_INTEGER || (!integer && c == H5T_FLOAT)) || !standard_number(ft))
            rc = cr_h5_fail(r, where, "not %s", integer ? "an integer" : "a number");
        else if (!one_element(sp, 0))
            rc = cr_h5_fail(r, where, "holds more than one number");
        else if (H5Aread(a, memtype, out) < 0)
            rc = cr_h5_fail(r, where, "HDF5 cannot read it (damaged, or out of range)");
    }
    close_attr(a, ft, sp);
    return rc;
}

int cr_h5_attr_integer(cr_h5_reader *r, hid_t obj, const char *objname, const char *attr,
                       int64_t *out)
{
    return attr_number(r, obj, objname, attr, 1, H5T_NATIVE_INT64, out);
}

int cr_h5_attr_real(cr_h5_reader *r, hid_t obj, const char *objname, const char *attr, double *out)
{
    return attr_number(r, obj, objname, attr, 0, H5T_NATIVE_DOUBLE, out);
}

const char *cr_h5_echo(const char *s, size_t max, char *buf, size_t len)
{
    size_t o = 0, shown = 0;
    if (!buf || len < 8)
        return "";
    for (; s && *s && o + 8 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (shown == max) {
            memcpy(buf + o, "...", 3);
            o += 3;
            break;
        }
        if (c == '\n' || c == '\t')
            o += (size_t)snprintf(buf + o, len - o, "\\%c", c == '\n' ? 'n' : 't');
        else if (c < 0x20 || c == 0x7f)
            o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
        else
            buf[o++] = (char)c;
        shown++;
    }
    buf[o] = '\0';
    return buf;
}
