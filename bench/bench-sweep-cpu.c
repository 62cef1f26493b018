/*
 * bench-sweep's CPU view (bench/bench-sweep.sh runs it after the wall-clock
 * runs): the sweep through the library serially and on 2 OpenMP threads,
 * timing each thread's own CPU (CLOCK_THREAD_CPUTIME_ID). On a shared machine
 * wall-clock speed-ups measure the other users; the CPU the busiest thread
 * spends is what the wall time would be with a core per thread, so
 * serial CPU / busiest thread's CPU is the speed-up the decomposition allows
 * (load balance and the threads' own overhead; not memory-bandwidth or cache
 * sharing, which only an idle machine shows).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cradle/cradle.h"
#include "cradle/sweep.h"

#define MAX_THREADS 64

typedef struct {
    double cpu[MAX_THREADS]; /* each thread's CPU at its last finished point */
    int points[MAX_THREADS];
} per_thread;

static double clock_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* called by the thread that finished the point */
static void note(size_t done, size_t total, void *user)
{
    (void)done;
    (void)total;
    per_thread *p = user;
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    if (t < MAX_THREADS) {
        p->cpu[t] = clock_of(CLOCK_THREAD_CPUTIME_ID);
        p->points[t]++;
    }
}

/* One full run on @p threads into @p out; fills @p p, @return wall seconds or −1. */
static double run(const cr_sweep *s, const char *out, int threads, per_thread *p)
{
    char msg[1024];
    cr_sweep_file *f = NULL;
    memset(p, 0, sizeof *p);
    if (cr_sweep_file_open(out, s, 1, &f, msg, sizeof msg) != CR_OK) {
        fprintf(stderr, "bench-sweep-cpu: %s\n", msg);
        return -1;
    }
    double t0 = clock_of(CLOCK_MONOTONIC);
    int rc = cr_sweep_run(s, f, threads, note, p, NULL);
    double wall = clock_of(CLOCK_MONOTONIC) - t0;
    cr_sweep_file_close(f, rc == CR_OK ? "complete" : "failed", msg, sizeof msg);
    return rc == CR_OK ? wall : -1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench-sweep-cpu SWEEP.yaml SCRATCH.h5\n");
        return 2;
    }
    char msg[1024];
    cr_sweep *s = NULL;
    if (cr_sweep_load(argv[1], &s, msg, sizeof msg) != CR_OK) {
        fprintf(stderr, "bench-sweep-cpu: %s\n", msg);
        return 3;
    }
    per_thread one, two;
    /* the serial run's CPU: its one thread is the calling thread (thread 0) */
    double c0 = clock_of(CLOCK_PROCESS_CPUTIME_ID);
    double w1 = run(s, argv[2], 1, &one);
    double serial_cpu = clock_of(CLOCK_PROCESS_CPUTIME_ID) - c0;
    /* thread CPU clocks start when a thread starts: OpenMP keeps its pool, so
     * the baseline is each thread's clock before the run (taken in a region) */
    double base[MAX_THREADS] = {0};
#ifdef _OPENMP
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num();
        if (t < MAX_THREADS)
            base[t] = clock_of(CLOCK_THREAD_CPUTIME_ID);
    }
#endif
    double w2 = run(s, argv[2], 2, &two);
    cr_sweep_destroy(s);
    if (w1 < 0 || w2 < 0)
        return 4;
    double busiest = 0;
    printf("bench-sweep-cpu: serial: %.3f s CPU (wall %.3f s)\n", serial_cpu, w1);
    for (int t = 0; t < 2; t++) {
        double c = two.points[t] ? two.cpu[t] - base[t] : 0.0;
        printf("bench-sweep-cpu: 2 threads, thread %d: %d points, %.3f s CPU\n", t, two.points[t],
               c);
        busiest = c > busiest ? c : busiest;
    }
    printf("bench-sweep-cpu: with a core per thread the 2-thread run would take the busiest "
           "thread's %.3f s: speed-up %.2fx from the decomposition (wall on this machine: "
           "%.2fx)\n",
           busiest, busiest > 0 ? serial_cpu / busiest : 0.0, w1 / w2);
    return 0;
}
