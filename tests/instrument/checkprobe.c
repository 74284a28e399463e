/*
 * tests/instrument/checkprobe.c -- a checking implementation of the probe
 * ABI (runtime/aa_probe.h) for the instrumenter's tests.  It keeps a
 * per-thread stack of open regions and aborts with a message on any exit
 * that does not match the innermost open region (a region left open or
 * closed twice by a bad rewrite), and at program exit writes one line per
 * region, "<id> <name> <enters> <exits>", plus "open <n>" for regions still
 * open when exit() was called, to $AA_CHECK_OUT (default stderr), or to
 * $AA_CHECK_DIR/check.<pid> (one file per MPI process).
 */
#include "runtime/aa_probe.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAXREG 4096
#define MAXDEPTH 4096

/* never set: no region is gated, every scope probe calls enter and exit */
__thread aa_runtime_gates *aa_runtime_gates_at __attribute__((tls_model("initial-exec")));

static aa_runtime_region *regs[MAXREG];
static long enters[MAXREG], exits_[MAXREG];
static int nregs;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local aa_runtime_region *stack[MAXDEPTH];
static _Thread_local int depth;
static int registered;
static int open_at_exit;

static void report(void)
{
    const char *path = getenv("AA_CHECK_OUT"), *dir = getenv("AA_CHECK_DIR");
    char buf[4096];
    FILE *f;
    if (dir) {
        snprintf(buf, sizeof buf, "%s/check.%ld", dir, (long)getpid());
        path = buf;
    }
    f = path ? fopen(path, "w") : stderr;
    if (!f)
        f = stderr;
    for (int i = 0; i < nregs; i++)
        fprintf(f, "%u %s %ld %ld\n", regs[i]->id, regs[i]->name, enters[i], exits_[i]);
    fprintf(f, "open %d\n", depth + open_at_exit);
    if (f != stderr)
        fclose(f);
}

__attribute__((constructor)) static void checkprobe_init(void)
{
    registered = 1;
    atexit(report);
}

static int slot(aa_runtime_region *r)
{
    if (r->handle > 0)
        return r->handle - 1;
    pthread_mutex_lock(&lock);
    if (r->handle == 0) {
        if (nregs == MAXREG) {
            fprintf(stderr, "checkprobe: too many regions\n");
            abort();
        }
        if (!registered) {
            registered = 1;
            atexit(report);
        }
        regs[nregs] = r;
        r->handle = ++nregs;
    }
    pthread_mutex_unlock(&lock);
    return r->handle - 1;
}

void aa_runtime_enter(aa_runtime_region *r)
{
    int i = slot(r);
    if (depth == MAXDEPTH) {
        fprintf(stderr, "checkprobe: region stack overflow at %s\n", r->name);
        abort();
    }
    stack[depth++] = r;
    __atomic_add_fetch(&enters[i], 1, __ATOMIC_RELAXED);
}

void aa_runtime_exit(aa_runtime_region *r)
{
    int i = slot(r);
    if (depth == 0 || stack[depth - 1] != r) {
        fprintf(stderr, "checkprobe: MISMATCH: exit of %s (%s:%d) but innermost open is %s\n",
                r->name, r->file, r->line, depth ? stack[depth - 1]->name : "(none)");
        abort();
    }
    depth--;
    __atomic_add_fetch(&exits_[i], 1, __ATOMIC_RELAXED);
}

void aa_runtime_scope_end(aa_runtime_region **r)
{
    aa_runtime_exit(*r);
}
