#include "tools-common.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cr-config.h"

#if defined(__SANITIZE_ADDRESS__)
#define TOOLS_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TOOLS_LSAN 1
#endif
#endif
#ifndef TOOLS_LSAN
#define TOOLS_LSAN 0
#endif
#if TOOLS_LSAN
#include <sanitizer/lsan_interface.h>
#endif

double tools_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A sanitizer build's leak check, which _exit would skip. */
static void leak_check(void)
{
#if TOOLS_LSAN
    __lsan_do_leak_check();
#endif
}

int tools_exit(int status)
{
    /* what is buffered reaches its file first; a failed flush of stdout (a
     * full disk under `> out.txt`) is a failure of the command */
    int e = fflush(stdout) != 0;
    fflush(stderr);
    if (status == 0 && !e)
        return 0;
    /* HDF5 1.10 closes every file still registered in its exit handler and
     * crashes on one whose close failed (a full disk: SIGSEGV in
     * H5F__close_cb). Every file of ours is closed or removed by now, so the
     * handler has nothing to do but crash: leave without it. A sanitizer
     * build still checks for leaks first (its check is an exit handler too). */
    leak_check();
    _exit(status ? status : EXIT_RUN);
}

void tools_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cradle: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void tools_model_error(const char *model, const char *msg)
{
    size_t n = strlen(model);
    if ((strncmp(msg, model, n) == 0 && msg[n] == ':') || strncmp(msg, "--set ", 6) == 0)
        tools_error("%s", msg);
    else
        tools_error("%s: %s", model, msg);
}

/* The default model beside an installed executable: BINDIR/../share/cradle/
 * models, found from /proc/self/exe so that a staged or moved install uses its
 * own models, not the build machine's. NULL when not there. */
static const char *model_beside_executable(void)
{
    static char path[4096];
    char exe[2048];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    const char *rel = CR_MODELDIR_FROM_BINDIR;
    int w = rel[0] == '/' ? snprintf(path, sizeof path, "%s/newton-cradle-5.yaml", rel)
                          : snprintf(path, sizeof path, "%s/%s/newton-cradle-5.yaml", exe, rel);
    return w > 0 && (size_t)w < sizeof path && access(path, R_OK) == 0 ? path : NULL;
}

const char *tools_default_model(void)
{
    const char *beside = model_beside_executable();
    if (beside)
        return beside;
    static const char *const candidates[] = {
        CR_MODELDIR "/newton-cradle-5.yaml",
        CR_SOURCE_ROOT "/models/newton-cradle-5.yaml",
    };
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (access(candidates[i], R_OK) == 0)
            return candidates[i];
    return candidates[1];
}

int tools_check_output(const char *out, const char *input, char *msg, size_t msglen)
{
    struct stat so, si;
    size_t len = out ? strlen(out) : 0;
    if (len == 0) {
        snprintf(msg, msglen, "the output file name is empty (give -o FILE)");
        return -1;
    }
    if (out[len - 1] == '/') {
        snprintf(msg, msglen, "%s: the output names a folder, not a file", out);
        return -1;
    }
    if (stat(out, &so) == 0) {
        if (S_ISDIR(so.st_mode)) {
            snprintf(msg, msglen, "%s: the output is a folder, not a file", out);
            return -1;
        }
        if (!S_ISREG(so.st_mode)) {
            snprintf(msg, msglen,
                     "%s: the output exists and is not a regular file (a device, pipe or "
                     "socket): refusing to replace it",
                     out);
            return -1;
        }
        if (input && stat(input, &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
            snprintf(msg, msglen,
                     "%s: the output is the model file itself: refusing to "
                     "overwrite it",
                     out);
            return -1;
        }
    }
    /* the folder must exist and be writable: the temporary file goes there */
    char *copy = strdup(out);
    if (!copy) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    const char *dir = dirname(copy);
    int ok = stat(dir, &so) == 0 && S_ISDIR(so.st_mode);
    int writable = ok && access(dir, W_OK | X_OK) == 0;
    if (!ok)
        snprintf(msg, msglen, "%s: the folder %s does not exist", out, dir);
    else if (!writable)
        snprintf(msg, msglen, "%s: the folder %s is not writable", out, dir);
    free(copy);
    return ok && writable ? 0 : -1;
}

int tools_check_folder(const char *dir, char *msg, size_t msglen)
{
    struct stat sb;
    if (!dir[0]) {
        snprintf(msg, msglen, "the folder name is empty");
        return -1;
    }
    if (stat(dir, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode)) {
            snprintf(msg, msglen, "%s: exists and is not a folder", dir);
            return -1;
        }
        if (access(dir, W_OK | X_OK) != 0) {
            snprintf(msg, msglen, "%s: the folder is not writable", dir);
            return -1;
        }
        return 0;
    }
    char *copy = strdup(dir);
    if (!copy) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    const char *parent = dirname(copy);
    int ok = stat(parent, &sb) == 0 && S_ISDIR(sb.st_mode) && access(parent, W_OK | X_OK) == 0;
    if (!ok)
        snprintf(msg, msglen, "%s: cannot be made: the folder %s does not exist or is not writable",
                 dir, parent);
    free(copy);
    return ok ? 0 : -1;
}

int tools_bad_option(const char *cmd, char **argv)
{
    const char *opt = optind > 0 ? argv[optind - 1] : "?";
    if (optopt && opt[0] == '-' && opt[1] != '-' && !strchr(opt, optopt))
        tools_error("%s: unknown option '-%c' (cradle help %s)", cmd, optopt, cmd);
    else
        tools_error("%s: unknown option or missing value: '%s' (cradle help %s)", cmd, opt, cmd);
    return EXIT_USAGE;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int tools_is_hdf5(const char *path)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char head[8];
    FILE *f = fopen(path, "rb");
    int yes = f && fread(head, 1, sizeof head, f) == sizeof head && !memcmp(head, sig, 8);
    if (f)
        fclose(f);
    return yes;
}

int tools_check_csv(const char *csv, const char *const *inputs, size_t n, char *msg, size_t msglen)
{
    if (strcmp(csv, "-") == 0)
        return 0;
    if (tools_check_output(csv, NULL, msg, msglen) != 0)
        return -1;
    for (size_t k = 0; k < n; k++)
        if (inputs[k] && (strcmp(csv, inputs[k]) == 0 || same_file(csv, inputs[k]))) {
            snprintf(msg, msglen,
                     "%s: --csv names %s, a file of this command: refusing to "
                     "overwrite it",
                     csv, inputs[k]);
            return -1;
        }
    if (tools_is_hdf5(csv)) {
        snprintf(msg, msglen, "%s: --csv names an HDF5 file: refusing to replace it with CSV", csv);
        return -1;
    }
    return 0;
}

/* What a stop signal reaches: the flag a sweep polls (cr_sweep_run, while it
 * integrates a point) and the one system tools_run_stoppable is running (one run
 * at a time per process). Both mean the same: stop at the next step and close
 * a valid file that says why. */
static volatile sig_atomic_t stop_flag;
static cr_system *volatile stoppable;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
    if (stoppable)
        cr_system_request_stop(stoppable);
}

const volatile sig_atomic_t *tools_catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    return &stop_flag;
}

void tools_run_release(tools_run *r)
{
    cr_monitor_destroy(r->mon);
    cr_store_destroy(r->store);
    cr_system_destroy(r->sys);
    if (r->keep)
        unlink(r->keep); /* only a second name of the file at the output */
    if (r->out)          /* set with the lock by tools_open_outputs */
        tools_unlock_output(r->lock, r->out);
    free(r->keep);
    free(r->kept);
    free(r->out);
    memset(r, 0, sizeof *r);
}

char *tools_output_target(const char *out, char *msg, size_t msglen)
{
    char *path = strdup(out);
    struct stat sb;
    /* follow the link, and a link to a link, as the kernel would (40 at most) */
    for (int hops = 0; path && lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode); hops++) {
        char target[4096];
        ssize_t n = hops < 40 ? readlink(path, target, sizeof target - 1) : -1;
        if (n <= 0) {
            snprintf(msg, msglen, "%s: a symbolic link that cannot be followed", out);
            free(path);
            return NULL;
        }
        target[n] = '\0';
        char *next;
        const char *slash = strrchr(path, '/');
        if (target[0] == '/' || !slash) {
            next = strdup(target);
        } else { /* relative to the link's folder */
            size_t dir = (size_t)(slash - path) + 1, len = dir + (size_t)n + 1;
            if ((next = malloc(len))) {
                memcpy(next, path, dir);
                memcpy(next + dir, target, (size_t)n + 1);
            }
        }
        free(path);
        path = next;
    }
    if (!path)
        snprintf(msg, msglen, "out of memory");
    return path;
}

/* OUT.lock, the file that carries the lock of output @p out (new string). */
static char *lock_path(const char *out)
{
    size_t n = strlen(out) + 8;
    char *path = malloc(n);
    if (path)
        snprintf(path, n, "%s.lock", out);
    return path;
}

int tools_lock_output(const char *out, char *msg, size_t msglen)
{
    char *path = lock_path(out);
    if (!path) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    for (int attempt = 0; attempt < 1000; attempt++) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            snprintf(msg, msglen, "%s: cannot take the output's lock %s: %s", out, path,
                     strerror(errno));
            free(path);
            return -1;
        }
        /* a POSIX record lock: the kernel releases it when the process ends,
         * however it ends, so a killed writer leaves no stale lock */
        struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
        if (fcntl(fd, F_SETLK, &l) != 0) {
            int err = errno;
            struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
            long pid = fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK ? (long)who.l_pid : 0;
            close(fd);
            if (err == EACCES || err == EAGAIN) {
                if (pid > 0)
                    snprintf(msg, msglen,
                             "%s: another cradle (pid %ld) is writing it: refusing to start a "
                             "second writer",
                             out, pid);
                else
                    snprintf(msg, msglen,
                             "%s: another cradle is writing it: refusing to start a second "
                             "writer",
                             out);
            } else
                snprintf(msg, msglen, "%s: cannot take the output's lock %s: %s", out, path,
                         strerror(err));
            free(path);
            return -1;
        }
        /* the holder before us removes the lock file when it ends: a lock
         * taken on a file no longer at the path locks nothing; take it again */
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino) {
            free(path);
            return fd;
        }
        close(fd);
    }
    snprintf(msg, msglen, "%s: cannot take the output's lock %s", out, path);
    free(path);
    return -1;
}

void tools_unlock_output(int fd, const char *out)
{
    if (fd < 0)
        return;
    /* removed while still held: a writer that opened it meanwhile finds it
     * gone once it holds it, and starts again on a new one */
    char *path = lock_path(out);
    if (path)
        unlink(path);
    free(path);
    close(fd);
}

int tools_commit(tools_run *r, const char *status, const char *error)
{
    int rc = cr_store_commit(r->store, status, error);
    tools_settle_output(r, rc != CR_OK || strcmp(status, "complete") == 0 ||
                               strcmp(status, "mismatch") == 0);
    return rc;
}

void tools_settle_output(tools_run *r, int replace)
{
    free(r->kept);
    r->kept = NULL;
    if (replace || !r->keep) {
        /* complete (or finished with --strict's mismatches): the new file
         * replaces the old as it always did; a failed
         * commit left the old one where it was */
        if (r->keep)
            unlink(r->keep);
        free(r->keep);
        r->keep = NULL;
        r->kept = strdup(r->out);
        return;
    }
    /* not complete, and a file was there: the new one goes beside it and the
     * old one comes back (one rename: the output never goes missing) */
    size_t n = strlen(r->out) + 64;
    char *partial = malloc(n);
    int moved = 0;
    for (int k = 1; partial && !moved && k < 1000; k++) {
        if (k == 1)
            snprintf(partial, n, "%s.partial-%ld.h5", r->out, (long)getpid());
        else
            snprintf(partial, n, "%s.partial-%ld-%d.h5", r->out, (long)getpid(), k);
        if (link(r->out, partial) == 0)
            moved = 1;
        else if (errno != EEXIST)
            break;
    }
    if (moved && rename(r->keep, r->out) == 0) {
        free(r->keep);
        r->keep = NULL;
        r->kept = partial;
        return;
    }
    if (moved)
        unlink(partial);
    free(partial);
    unlink(r->keep); /* could not keep the old file: the new one is at the output */
    free(r->keep);
    r->keep = NULL;
    r->kept = strdup(r->out);
}

int tools_stop_requested(void)
{
    return stop_flag != 0;
}
int tools_run_stoppable(tools_run *r, double t_end)
{
    stoppable = r->sys;
    tools_catch_stop_signals();
    double t0 = tools_now();
    int rc = cr_system_run(r->sys, t_end);
    r->wall = tools_now() - t0;
    stoppable = NULL;
    return rc;
}

int tools_open_outputs(tools_run *r, const char *out, const cr_model *model, const char *model_path,
                       const char *text)
{
    char msg[1024] = "";
    r->lock = -1;
    if (out && (!(r->out = tools_output_target(out, msg, sizeof msg)) ||
                (r->lock = tools_lock_output(r->out, msg, sizeof msg)) < 0)) {
        tools_error("%s", msg);
        return EXIT_INPUT;
    }
    struct stat sb;
    if (out && lstat(r->out, &sb) == 0 && S_ISREG(sb.st_mode)) {
        /* the file there now: a second name until the run ends (tools_commit) */
        size_t n = strlen(r->out) + 32;
        if ((r->keep = malloc(n))) {
            snprintf(r->keep, n, "%s.keep-%ld", r->out, (long)getpid());
            unlink(r->keep);
            if (link(r->out, r->keep) != 0) {
                free(r->keep); /* no hard links here: the run replaces it as before */
                r->keep = NULL;
            }
        }
    }
    if (out &&
        !(r->store = cr_store_create(r->out, r->sys, model, model_path, text, msg, sizeof msg))) {
        tools_error("%s", msg);
        return EXIT_RUN;
    }
    if (msg[0]) /* a stale temporary file kept under another name */
        tools_error("%s", msg);
    if (!(r->mon = cr_monitor_create(r->sys))) {
        tools_error("out of memory");
        return EXIT_RUN;
    }
    cr_store_set_monitor(r->store, r->mon); /* /restart between its episodes */
    return 0;
}
