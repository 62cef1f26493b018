/* Shared libraries opened with dlopen at their first use instead of by the
 * dynamic linker at program start: runs that never need them load neither
 * them nor the libraries behind them (issue 12, start-up; docs/performance.md).
 * Used for Siconos Numerics (lcp.c) and LAPACKE/BLAS (dense.c). */
#ifndef CRADLE_LAZYLIB_PRIV_H
#define CRADLE_LAZYLIB_PRIV_H

#include <stddef.h>

/* One symbol to bind: `slot` is the address of a function pointer of the
 * symbol's type (POSIX lets dlsym's object pointer be stored in one). */
typedef struct {
    const char *name;
    void *slot;
} cr_lazy_symbol;

/*
 * Opens `soname` (RTLD_LOCAL: its symbols stay out of the global scope) and
 * binds the symbols of `syms` (ended by a NULL name), looked up in the library
 * and its dependencies. Never closed: the caller opens it once (call_once).
 * @return 0, or -1 with `error` set to "`need` and cannot be loaded (dlerror's
 * text; Debian package `package`)" or the symbol that is missing.
 */
int cr_lazy_open(const char *soname, const cr_lazy_symbol *syms, const char *need,
                 const char *package, char *error, size_t len);

#endif
