/*
 * runtime/user.c -- the user API (regions by name, the scope form behind
 * AA_REGION_SCOPE of aa_user.h, flush) and the Fortran-callable entry points.  Both need descriptors created at run
 * time: they live in a fixed open-addressing table (lock-free lookup,
 * insertion under a mutex, never removed).  Named user regions get the id
 * 0xF0000000 | (FNV-1a(name) & 0x0FFFFFFF) and kind "user"; Fortran regions
 * keep the instrumenter's id, kind "loop" when the name starts with "loop@",
 * "call" for another name with '@' (MPI_Send@57), else "function".
 */
#include "runtime/aa_runtime.h"
#include "runtime/rt_internal.h"

#include <stdlib.h>
#include <string.h>

#define TABLE_SIZE 16384

typedef struct dyn_region {
    int by_name;
    char *name;
    aa_runtime_region desc;
} dyn_region;

static dyn_region *table[TABLE_SIZE];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t fnv1a(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

static int same(const dyn_region *d, int by_name, uint32_t id, const char *name, size_t n)
{
    if (d->by_name != by_name)
        return 0;
    if (by_name)
        return strlen(d->name) == n && memcmp(d->name, name, n) == 0;
    return d->desc.id == id;
}

/* Finds or creates the descriptor; NULL when the table is full / no memory. */
static aa_runtime_region *lookup(int by_name, uint32_t id, const char *name, size_t n)
{
    uint32_t h = by_name ? fnv1a(name, n) : id * 2654435761u;
    uint32_t i, k;
    dyn_region *d;
    if (by_name)
        id = 0xF0000000u | (h & 0x0FFFFFFFu);
    for (k = 0; k < TABLE_SIZE; k++) {
        i = (h + k) & (TABLE_SIZE - 1);
        d = __atomic_load_n(&table[i], __ATOMIC_ACQUIRE);
        if (!d)
            break;
        if (same(d, by_name, id, name, n))
            return &d->desc;
    }
    pthread_mutex_lock(&table_lock);
    for (k = 0; k < TABLE_SIZE; k++) {
        i = (h + k) & (TABLE_SIZE - 1);
        d = table[i];
        if (!d)
            break;
        if (same(d, by_name, id, name, n)) {
            pthread_mutex_unlock(&table_lock);
            return &d->desc;
        }
    }
    if (k == TABLE_SIZE || !(d = calloc(1, sizeof *d)) || !(d->name = malloc(n + 1))) {
        free(d);
        pthread_mutex_unlock(&table_lock);
        aa_rt_fail("too many dynamically named regions");
        return NULL;
    }
    memcpy(d->name, name, n);
    d->name[n] = 0;
    d->by_name = by_name;
    d->desc.id = id;
    d->desc.kind = by_name ? AA_KIND_USER
                   : strncmp(d->name, "loop@", 5) == 0 ? AA_KIND_LOOP
                   : strchr(d->name, '@')             ? AA_KIND_CALL /* MPI_Send@57 */
                                                      : AA_KIND_FUNCTION;
    d->desc.name = d->name;
    /* a loop's or call's function comes from the region map the wrapper
     * embeds (collect fills what the runtime leaves empty) */
    d->desc.function = by_name || d->desc.kind != AA_KIND_FUNCTION ? "" : d->name;
    d->desc.file = "";
    __atomic_store_n(&table[i], d, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&table_lock);
    return &d->desc;
}

void aa_runtime_user_begin(const char *name)
{
    aa_runtime_region *r = lookup(1, 0, name ? name : "", name ? strlen(name) : 0);
    if (r)
        aa_rt_enter_user(r);
}

/* AA_REGION_SCOPE: the descriptor is returned so that the cleanup
 * (aa_runtime_scope_end) needs no second lookup by name. */
aa_runtime_region *aa_runtime_user_enter(const char *name)
{
    aa_runtime_region *r = lookup(1, 0, name ? name : "", name ? strlen(name) : 0);
    if (r)
        aa_rt_enter_user(r);
    return r;
}

void aa_runtime_user_end(const char *name)
{
    aa_runtime_region *r = lookup(1, 0, name ? name : "", name ? strlen(name) : 0);
    if (r)
        aa_runtime_exit(r);
}

int aa_runtime_flush(void)
{
    return aa_rt_write_own_profile("flush");
}

/* Fortran strings are blank-padded. */
static size_t ftrim(const char *s, size_t n)
{
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == 0))
        n--;
    return n;
}

void aa_runtime_enter_f_(const int32_t *id, const char *name, size_t name_len)
{
    aa_runtime_region *r = lookup(0, (uint32_t)*id, name, ftrim(name, name_len));
    if (r)
        aa_runtime_enter(r);
}

/* The instrumenter emits this enter for a region refined in round 2: the
 * flag is set before the first enter registers the descriptor. */
void aa_runtime_enter_refined_f_(const int32_t *id, const char *name, size_t name_len)
{
    aa_runtime_region *r = lookup(0, (uint32_t)*id, name, ftrim(name, name_len));
    if (!r)
        return;
    if (!(__atomic_load_n(&r->kind, __ATOMIC_RELAXED) & AA_RUNTIME_REFINED))
        __atomic_fetch_or(&r->kind, AA_RUNTIME_REFINED, __ATOMIC_RELAXED);
    aa_runtime_enter(r);
}

void aa_runtime_exit_f_(const int32_t *id, const char *name, size_t name_len)
{
    aa_runtime_region *r = lookup(0, (uint32_t)*id, name, ftrim(name, name_len));
    if (r)
        aa_runtime_exit(r);
}

void aa_runtime_user_begin_f_(const char *name, size_t name_len)
{
    aa_runtime_region *r = lookup(1, 0, name, ftrim(name, name_len));
    if (r)
        aa_rt_enter_user(r);
}

void aa_runtime_user_end_f_(const char *name, size_t name_len)
{
    aa_runtime_region *r = lookup(1, 0, name, ftrim(name, name_len));
    if (r)
        aa_runtime_exit(r);
}

void aa_runtime_pause_f_(void)
{
    aa_runtime_pause();
}

void aa_runtime_resume_f_(void)
{
    aa_runtime_resume();
}

void aa_runtime_flush_f_(void)
{
    aa_runtime_flush();
}
