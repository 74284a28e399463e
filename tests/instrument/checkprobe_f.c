/*
 * tests/instrument/checkprobe_f.c -- the Fortran entry points of the probe
 * (aa_runtime_enter_f / aa_runtime_exit_f, as runtime/user.c provides them)
 * over the checking probe of checkprobe.c: one descriptor per region id,
 * created on its first enter, so that every mismatched exit of an
 * instrumented Fortran program aborts it with a message.  Link with
 * checkprobe.o.
 */
#include "runtime/aa_probe.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAXF 4096

static aa_runtime_region fregs[MAXF];
static int nf;
static pthread_mutex_t flock = PTHREAD_MUTEX_INITIALIZER;

static aa_runtime_region *find(int32_t id, const char *name, size_t len)
{
    aa_runtime_region *r = NULL;
    while (len > 0 && name[len - 1] == ' ')
        len--;
    pthread_mutex_lock(&flock);
    for (int i = 0; i < nf && !r; i++)
        if (fregs[i].id == (uint32_t)id)
            r = &fregs[i];
    if (!r && nf < MAXF) {
        char *n = malloc(len + 1);
        if (n) {
            memcpy(n, name, len);
            n[len] = 0;
            r = &fregs[nf++];
            r->id = (uint32_t)id;
            r->name = n;
            r->function = n;
            r->file = "";
        }
    }
    pthread_mutex_unlock(&flock);
    if (!r)
        abort();
    return r;
}

void aa_runtime_enter_f_(const int32_t *id, const char *name, size_t len);
void aa_runtime_exit_f_(const int32_t *id, const char *name, size_t len);

void aa_runtime_enter_f_(const int32_t *id, const char *name, size_t len)
{
    aa_runtime_enter(find(*id, name, len));
}

void aa_runtime_exit_f_(const int32_t *id, const char *name, size_t len)
{
    aa_runtime_exit(find(*id, name, len));
}
