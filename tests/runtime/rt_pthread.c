/*
 * tests/runtime/rt_pthread.c -- four pthreads entering nested regions many
 * times, concurrently registering the same descriptors, plus I/O from a
 * worker; used both normally (per-thread trees in the profile) and built
 * with -fsanitize=thread (no data races in the probe path).
 */
#include <pthread.h>

#include "tests/runtime/rt_common.h"

RT_REGION(r_main, 1, 0, 1, 10, "main", "main");
RT_REGION(r_work, 2, 0, 1, 20, "thread_body", "thread_body");
RT_REGION(r_inner, 3, 2, 2, 30, "inner", "thread_body");

#define NT 4
#define ITER 2000

static void *worker(void *arg)
{
    volatile long s = 0;
    long id = (long)arg;
    aa_runtime_enter(&r_work);
    for (int i = 0; i < ITER; i++) {
        aa_runtime_enter(&r_inner);
        s += i * id;
        aa_runtime_exit(&r_inner);
    }
    aa_runtime_user_begin("worker_user");
    aa_runtime_user_end("worker_user");
    aa_runtime_exit(&r_work);
    return NULL;
}

int main(void)
{
    pthread_t th[NT];
    aa_runtime_enter(&r_main);
    for (long i = 0; i < NT; i++)
        if (pthread_create(&th[i], NULL, worker, (void *)i) != 0)
            return 1;
    for (int i = 0; i < NT; i++)
        pthread_join(th[i], NULL);
    aa_runtime_exit(&r_main);
    return 0;
}
