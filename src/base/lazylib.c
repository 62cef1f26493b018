#include "base/lazylib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int cr_lazy_open(const char *soname, const cr_lazy_symbol *syms, const char *need,
                 const char *package, char *error, size_t len)
{
    /* RTLD_LAZY: the thousands of functions LAPACK, OpenBLAS and Siconos
     * import are bound at their first call, not all at the open (a rigid
     * run calls a few dozen; binding all of them was a quarter of the
     * ~5 ms the first impact spent loading). The symbols cradle calls are
     * checked at once by dlsym below. */
    void *lib = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(error, len, "%s and cannot be loaded (%s; Debian package %s)", need,
                 why ? why : soname, package);
        return -1;
    }
    for (const cr_lazy_symbol *s = syms; s->name; s++) {
        void *sym = dlsym(lib, s->name);
        if (!sym) {
            snprintf(error, len, "%s has no %s", soname, s->name);
            return -1; /* the handle stays open: harmless, dlclose could run finalisers */
        }
        memcpy(s->slot, &sym, sizeof sym);
    }
    return 0;
}
