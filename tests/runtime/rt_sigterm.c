/*
 * tests/runtime/rt_sigterm.c -- two threads that allocate without pause
 * inside regions, until a signal ends the program: whenever SIGTERM comes,
 * one of them is likely inside malloc, holding its lock.  The runtime's
 * fatal-signal handler must neither hang nor change how the program ends.
 * Prints "ready" on stdout once both threads run.
 */
#include <pthread.h>

#include "tests/runtime/rt_common.h"

RT_REGION(r_main, 1, 0, 1, 20, "main", "main");
RT_REGION(r_work, 2, 1, 1, 30, "churn", "churn");
RT_REGION(r_inner, 3, 2, 2, 35, "loop@35", "churn");

static volatile int started;

static void *churn(void *arg)
{
    size_t k = (size_t)arg;
    aa_runtime_enter(&r_work);
    __atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
    for (;;) {
        void *p[64];
        aa_runtime_enter(&r_inner);
        for (int i = 0; i < 64; i++)
            p[i] = malloc(16 + (k++ * 7919) % 4096);
        for (int i = 0; i < 64; i++)
            free(p[i]);
        aa_runtime_exit(&r_inner);
    }
    return NULL;
}

int main(void)
{
    pthread_t th;
    aa_runtime_enter(&r_main);
    pthread_create(&th, NULL, churn, (void *)1);
    while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < 1)
        ;
    puts("ready");
    fflush(stdout);
    churn((void *)2);
    return 0;
}
