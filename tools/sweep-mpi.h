/* `mpirun -n P cradle sweep`: the points distributed over MPI ranks (built
 * with -Dmpi=enabled; without it every function below says "one rank"). */
#ifndef CRADLE_TOOLS_SWEEP_MPI_H
#define CRADLE_TOOLS_SWEEP_MPI_H

#include <signal.h>

#include "cradle/sweep.h"

/* MPI_Init when built with MPI and started by mpirun (OMPI_COMM_WORLD_SIZE or
 * PMI_SIZE set), through libcradle-mpi.so (mpi-shim.h), opened only then;
 * @return the number of ranks (1 otherwise), 0 when that module cannot be
 * opened (said on stderr). */
int sweep_mpi_init(int *argc, char ***argv);
int sweep_mpi_rank(void);
/* Every rank takes @p value from rank 0 (a status decided there). */
int sweep_mpi_share(int value);
void sweep_mpi_finalize(void);
/* 1 when this build has MPI. */
int sweep_mpi_built(void);

/*
 * Rank 0 hands out the points @p f has not done, one index at a time (two in
 * flight per rank so no rank waits for the next), computes points itself in
 * between, and writes every row; the other ranks compute what they are sent.
 * @p f is NULL on ranks other than 0. @return as cr_sweep_run (on rank 0).
 */
int sweep_mpi_run(const cr_sweep *s, cr_sweep_file *f, cr_sweep_progress progress, void *user,
                  const volatile sig_atomic_t *stop);

#endif
