#include "tools-common.h"

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

double tools_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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
    memset(r, 0, sizeof *r);
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
    if (out &&
        !(r->store = cr_store_create(out, r->sys, model, model_path, text, msg, sizeof msg))) {
        tools_error("%s", msg);
        return EXIT_RUN;
    }
    if (msg[0]) /* a stale temporary file kept under another name */
        tools_error("%s", msg);
    if (!(r->mon = cr_monitor_create(r->sys))) {
        tools_error("out of memory");
        return EXIT_RUN;
    }
    return 0;
}
