/* The module libcradle-mpi.so: the few MPI calls of sweep-mpi.c, exported as
 * one table (mpi-shim.h). Linked with libmpi; opened by `cradle sweep` only
 * under an MPI launcher. */
#include "mpi-shim.h"

#include <mpi.h>

static int shim_init(int *argc, char ***argv, int *thread_ok)
{
    int provided = MPI_THREAD_SINGLE, size = 1;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return 0;
    *thread_ok = provided >= MPI_THREAD_FUNNELED;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

static int shim_rank(void)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

static void shim_bcast_int(int *value)
{
    MPI_Bcast(value, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

static void shim_finalize(void)
{
    MPI_Finalize();
}

static void shim_abort(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
}

static int shim_iprobe(int source, int tag, int *from)
{
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(source < 0 ? MPI_ANY_SOURCE : source, tag, MPI_COMM_WORLD, &flag, &st);
    if (flag && from)
        *from = st.MPI_SOURCE;
    return flag;
}

static void shim_recv(void *buf, size_t bytes, int source, int tag, int *from)
{
    MPI_Status st;
    MPI_Recv(buf, (int)bytes, MPI_BYTE, source < 0 ? MPI_ANY_SOURCE : source, tag, MPI_COMM_WORLD,
             &st);
    if (from)
        *from = st.MPI_SOURCE;
}

static void shim_send(const void *buf, size_t bytes, int to, int tag)
{
    MPI_Send(buf, (int)bytes, MPI_BYTE, to, tag, MPI_COMM_WORLD);
}

static double shim_wtime(void)
{
    return MPI_Wtime();
}

__attribute__((visibility("default"))) extern const cradle_mpi_api cradle_mpi_table;
const cradle_mpi_api cradle_mpi_table = {shim_init,     shim_rank,  shim_bcast_int,
                                         shim_finalize, shim_abort, shim_iprobe,
                                         shim_recv,     shim_send,  shim_wtime};
