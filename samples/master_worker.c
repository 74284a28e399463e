/*
 * samples/master_worker.c -- master/worker sample for AutoAnalyzer.
 *
 * Rank 0 (the master) only hands out work: it sends task ids to the workers
 * (ranks 1..P-1) one at a time with MPI_Send, receives each result with
 * MPI_Recv(MPI_ANY_SOURCE) and sends that worker the next task, until all
 * tasks are done; then it tells every worker to stop.  Workers compute.
 * Tasks have different costs (1 to MAX_COST units), so dynamic dispatch keeps
 * the workers evenly loaded.
 *
 * THE BOTTLENECK (a dissimilarity bottleneck by design -- rank 0 behaves
 * unlike every other rank):
 *   - rank 0 spends almost all its time in function dispatch_tasks(), in the
 *     MPI_Recv of its loop `while (done < ntasks)` (line marked
 *     "MASTER WAITS HERE"): high MPI time, almost no computation;
 *   - the workers spend their time in function compute_task(), the nested
 *     loop `for (u = 0; u < cost; u++) for (k = 0; k < WORK_PER_UNIT; k++)`
 *     (line marked "WORKER COMPUTES HERE").
 *   A good analysis puts rank 0 in a cluster of its own and the workers in
 *   another, and does not call the workers imbalanced.
 *
 * BOTTLENECK-AT: dispatch_tasks() line 114 ("MASTER WAITS HERE")
 * BOTTLENECK-AT: compute_task() line 89 ("WORKER COMPUTES HERE")
 *
 * Usage: mpirun -np 4 build/samples/master_worker [-s small|large] [-n TASKS]
 * (with one rank, rank 0 computes the tasks itself).
 * Output: result lines and `checksum: <value>`: the sum of the results in
 * task order, the same whichever worker computed which task.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TASKS_SMALL 240
#define TASKS_LARGE 960
#define MAX_COST 8
#define WORK_PER_UNIT 150000
#define TAG_TASK 1
#define TAG_RESULT 2
#define TAG_STOP 3

typedef struct {
    int ntasks;
} config;

/* Parses -s small|large and -n TASKS; returns 0 on success, -1 on bad input. */
static int parse_args(int argc, char **argv, config *cfg)
{
    int i;
    cfg->ntasks = TASKS_SMALL;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
            const char *s = argv[++i];
            if (strcmp(s, "small") == 0)
                cfg->ntasks = TASKS_SMALL;
            else if (strcmp(s, "large") == 0)
                cfg->ntasks = TASKS_LARGE;
            else
                return -1;
        } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end != '\0' || n < 1 || n > 1000000)
                return -1;
            cfg->ntasks = (int)n;
        } else {
            return -1;
        }
    }
    return 0;
}

/* Cost of a task in work units: a fixed pseudo-random function of its id. */
static int task_cost(int task)
{
    return (int)(((unsigned)task * 2654435761u >> 16) % MAX_COST) + 1;
}

/* The workers' computation: an integer recurrence, `cost` units long. */
static uint64_t compute_task(int task)
{
    uint64_t v = (uint64_t)task * 0x9e3779b97f4a7c15ULL + 1;
    int cost = task_cost(task), u, k;
    for (u = 0; u < cost; u++) {
        for (k = 0; k < WORK_PER_UNIT; k++) {
            v = v * 6364136223846793005ULL + 1442695040888963407ULL; /* WORKER COMPUTES HERE */
            v ^= v >> 33;
        }
    }
    return v >> 40; /* keep results small so their sum cannot wrap */
}

/* Master: dispatches all tasks, collects results[task].  Returns the number
 * of tasks each worker computed in per_worker (informational only). */
static void dispatch_tasks(uint64_t *results, int ntasks, int size, int *per_worker)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int next = 0, done = 0, w;
    /* prime every worker with one task (or stop it if there is none) */
    for (w = 1; w < size; w++) {
        if (next < ntasks) {
            MPI_Send(&next, 1, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
            next++;
        } else {
            MPI_Send(&next, 1, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
        }
    }
    while (done < ntasks) {
        uint64_t msg[2];
        MPI_Status st;
        MPI_Recv(msg, 2, MPI_UINT64_T, MPI_ANY_SOURCE, TAG_RESULT, comm, &st); /* MASTER WAITS HERE */
        results[msg[0]] = msg[1];
        per_worker[st.MPI_SOURCE]++;
        done++;
        if (next < ntasks) {
            MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
            next++;
        } else {
            MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
        }
    }
}

/* Worker: computes tasks until told to stop; returns how many it did. */
static int serve_tasks(void)
{
    int count = 0;
    for (;;) {
        int task;
        uint64_t msg[2];
        MPI_Status st;
        MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP)
            break;
        msg[0] = (uint64_t)task;
        msg[1] = compute_task(task);
        MPI_Send(msg, 2, MPI_UINT64_T, 0, TAG_RESULT, MPI_COMM_WORLD);
        count++;
    }
    return count;
}

/* Without workers, rank 0 computes everything itself. */
static int run_serial(uint64_t *results, int ntasks, int size)
{
    int t;
    if (size > 1)
        return 0;
    for (t = 0; t < ntasks; t++)
        results[t] = compute_task(t);
    return 1;
}

int main(int argc, char **argv)
{
    config cfg;
    int rank, size, t, units = 0, *per_worker = NULL;
    uint64_t *results = NULL, checksum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &cfg) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [-s small|large] [-n TASKS]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    if (rank == 0) {
        results = calloc((size_t)cfg.ntasks, sizeof *results);
        per_worker = calloc((size_t)size, sizeof *per_worker);
        if (!results || !per_worker) {
            fprintf(stderr, "master_worker: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (!run_serial(results, cfg.ntasks, size))
            dispatch_tasks(results, cfg.ntasks, size, per_worker);
        for (t = 0; t < cfg.ntasks; t++) {
            checksum += results[t];
            units += task_cost(t);
        }
        printf("master_worker: %d ranks (%d workers), %d tasks, %d work units\n",
               size, size - 1, cfg.ntasks, units);
        printf("checksum: %llu\n", (unsigned long long)checksum);
        free(results);
        free(per_worker);
    } else {
        serve_tasks();
    }
    MPI_Finalize();
    return 0;
}
