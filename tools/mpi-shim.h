/* The MPI calls of `mpirun -n P cradle sweep` (sweep-mpi.c), behind a table of
 * functions in a module of their own (mpi-shim.c, libcradle-mpi.so): libmpi and
 * the Open MPI tree behind it (open-rte, open-pal, hwloc, libevent, udev) are
 * loaded only when a sweep starts under a launcher, not by every `cradle`
 * process (docs/performance.md, "Start-up"). Messages travel as bytes: the
 * ranks run the same binary on one kind of machine, as the rows always did. */
#ifndef CRADLE_TOOLS_MPI_SHIM_H
#define CRADLE_TOOLS_MPI_SHIM_H

#include <stddef.h>

typedef struct {
    /* MPI_Init_thread asking for MPI_THREAD_FUNNELED; @p thread_ok says it was
     * granted. @return the number of ranks, 0 when MPI could not start. */
    int (*init)(int *argc, char ***argv, int *thread_ok);
    int (*rank)(void);
    /* every rank takes *value from rank 0 */
    void (*bcast_int)(int *value);
    void (*finalize)(void);
    void (*abort)(int code);
    /* @return 1 when a message with @p tag from @p source (< 0: any) waits;
     * its sender in *from (may be NULL) */
    int (*iprobe)(int source, int tag, int *from);
    void (*recv)(void *buf, size_t bytes, int source, int tag, int *from);
    void (*send)(const void *buf, size_t bytes, int to, int tag);
    double (*wtime)(void);
} cradle_mpi_api;

/* The module's file name (found through the executable's run path) and the
 * name of the table it exports. */
#define CRADLE_MPI_MODULE "libcradle-mpi.so"
#define CRADLE_MPI_TABLE "cradle_mpi_table"

#endif
