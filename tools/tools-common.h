/* Helpers shared by the cradle subcommands (public API only). */
#ifndef CRADLE_TOOLS_COMMON_H
#define CRADLE_TOOLS_COMMON_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "cradle/cradle.h"

/* Exit statuses of the command-line tool (docs/errors.md). */
enum {
    EXIT_USAGE = 2,
    EXIT_INPUT = 3,
    EXIT_RUN = 4,
    EXIT_DOMAIN = 5,
    EXIT_MISMATCH = 6,
    EXIT_INTERRUPTED = 130
};

/* Wall-clock seconds from a monotonic clock. */
double tools_now(void);

/*
 * The end of every command (main returns what this returns): flushes stdout
 * and stderr; status 0 returns 0 and the process exits normally; any other
 * status (or a failed flush of stdout) leaves through _exit, without the exit
 * handlers: HDF5 1.10's crashes on a file whose close failed (a full disk,
 * docs/errors.md), after our message and cleanup.
 */
int tools_exit(int status);

/* Prints "cradle: <message>" on stderr (one line). */
void tools_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "cradle: MODEL: MSG", or "cradle: MSG" when the message already names the
 * model file (with its line) or the --set that gave the field. */
void tools_model_error(const char *model, const char *msg);

/* Path of the default model: the installed copy, else the source tree's. */
const char *tools_default_model(void);

/*
 * Checks an output path before any work: refuses an empty name, a directory, a
 * path that exists and is not a regular file (a device, a pipe), the input file
 * itself, and a folder that does not exist. @return 0, or -1 with the reason in
 * @p msg.
 */
int tools_check_output(const char *out, const char *input, char *msg, size_t msglen);
/*
 * Checks a --csv path before any work ("-" is standard output): as
 * tools_check_output, and not one of the command's @p n files @p inputs (its
 * inputs and its HDF5 output; NULL entries are skipped), nor an existing
 * HDF5 file. @return 0, or -1 with the reason in @p msg.
 */
int tools_check_csv(const char *csv, const char *const *inputs, size_t n, char *msg, size_t msglen);

/*
 * Checks a folder to write into before any work: an existing folder that is
 * writable, or one that can be made (its parent exists and is writable).
 * @return 0, or -1 with the reason in @p msg.
 */
int tools_check_folder(const char *dir, char *msg, size_t msglen);

/* 1 when @p path is an existing file that starts with HDF5's signature. */
int tools_is_hdf5(const char *path);

/*
 * One line for an option getopt_long refused (opterr = 0: unknown, or missing
 * its value): names it and the help topic. @return EXIT_USAGE.
 */
int tools_bad_option(const char *cmd, char **argv);

/*
 * Routes SIGINT, SIGTERM, SIGHUP and SIGQUIT to the one stop handler of the
 * CLI and ignores SIGPIPE (a closed terminal must not kill a run that still
 * has a file to close). The handler asks the system tools_run_stoppable is
 * running to stop at its next step and sets the flag returned here, which
 * loops over many runs poll (cr_sweep_run's stop).
 */
const volatile sig_atomic_t *tools_catch_stop_signals(void);

/* The parts of one run a command drives: its system, its monitor, its store
 * (NULL when the run writes no file) and the seconds cr_system_run took. */
typedef struct {
    cr_system *sys;
    cr_monitor *mon;
    cr_store *store;
    double wall;
    char *out;  /* the file written: -o, a symbolic link followed to its target */
    char *keep; /* a hard link to the file @p out held before the run (or NULL) */
    char *kept; /* where the run's file is after tools_commit (out or a partial) */
    int lock;   /* the output's lock (tools_lock_output) when out is set */
} tools_run;

/* Destroys what @p r holds (NULL parts are fine), releases its output's
 * lock, and zeroes it. */
void tools_run_release(tools_run *r);

/*
 * The file an output path names: a symbolic link is followed to its target,
 * which the command writes (through a temporary beside it, renamed over it),
 * so the link stays a link. @return a new string, or NULL with the reason in
 * @p msg (a link to a missing file).
 */
char *tools_output_target(const char *out, char *msg, size_t msglen);

/*
 * Takes the lock of output @p out (a POSIX record lock on OUT.lock, which
 * exists while the lock is held; the kernel releases it when the process
 * ends, however it ends): one writer per output file at a time.
 * @return the lock's descriptor, or -1 with "OUT: another cradle (pid N) is
 * writing it: refusing to start a second writer" (or why the lock could not
 * be taken) in @p msg.
 */
int tools_lock_output(const char *out, char *msg, size_t msglen);
/* Releases the lock @p fd of output @p out and removes OUT.lock (-1: none). */
void tools_unlock_output(int fd, const char *out);

/*
 * cr_store_commit of r->store with @p status, then: a run that is not
 * complete never replaces a file that was at the output before it (kept as a
 * hard link by tools_open_outputs): the new file moves to
 * OUT.partial-PID.h5 and the old one is back at OUT. r->kept says where the
 * run's file is. @return cr_store_commit's code.
 */
int tools_commit(tools_run *r, const char *status, const char *error);
/*
 * What tools_commit does after cr_store_commit, for a command whose output is
 * complete only after more work on the committed file (compare --rigid adds
 * /comparison after its rigid runs): @p replace (it completed) drops the old
 * file's second name; otherwise the new file moves to OUT.partial-PID.h5 and
 * the old one is back at OUT. r->kept says where the run's file is.
 */
void tools_settle_output(tools_run *r, int replace);
/* 1 once a stop signal came (tools_catch_stop_signals). */
int tools_stop_requested(void);

/*
 * What r->sys writes into before it starts: the store of @p out (none when
 * @p out is NULL; @p model_path and @p text as cr_store_create records them)
 * and the monitor. The output is locked first (a second writer is refused,
 * EXIT_INPUT), a symbolic link followed to its target, and a file already
 * there kept by a hard link until tools_commit knows whether the run
 * replaces it. A stale temporary file the store kept under another name is
 * always said. @return 0, or EXIT_INPUT / EXIT_RUN with the message printed.
 */
int tools_open_outputs(tools_run *r, const char *out, const cr_model *model, const char *model_path,
                       const char *text);

/*
 * Runs r->sys to @p t_end, with SIGINT, SIGTERM, SIGHUP and SIGQUIT asking it
 * to stop at its next step (tools_catch_stop_signals), so the caller can still
 * close a valid file; r->wall gets the run's wall-clock seconds.
 * @return cr_system_run's code.
 */
int tools_run_stoppable(tools_run *r, double t_end);

/* Subcommands. */
int cmd_run(int argc, char **argv);
void usage_run(FILE *out);
int cmd_law(int argc, char **argv);
void usage_law(FILE *out);
int cmd_compare(int argc, char **argv);
void usage_compare(FILE *out);
int cmd_fit(int argc, char **argv);
void usage_fit(FILE *out);
int cmd_pack(int argc, char **argv);
void usage_pack(FILE *out);
/* cradle law NAME --input RUN.h5 --episode K (cmd-compare.c) */
int cmd_law_episode(int argc, char **argv);

#endif
