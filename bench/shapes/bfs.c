/*
 * bench/shapes/bfs.c -- overhead shape "breadth-first search" (issue 14),
 * modelled on graph500's reference BFS: a random CSR graph (2^16
 * vertices, edge factor 16) searched from several roots; every edge goes
 * through small helpers (bitmap test/set, vertex owner/local index, edge
 * range), as in graph500's aml/bitmap code.
 * Prints the visited-vertex sum and "kernel_s T" (the BFS loop's time).
 *   bfs [ROOTS]                    default 24
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SCALE 16
#define NV (1L << SCALE)
#define EF 16

static int64_t *rowstart, *col, *pred, *queue;
static uint64_t *visited;

static inline int test_bit(const uint64_t *bm, int64_t v)
{
    return (bm[v >> 6] >> (v & 63)) & 1;
}

static void set_bit(uint64_t *bm, int64_t v)
{
    bm[v >> 6] |= 1ULL << (v & 63);
}

static int vertex_owner(int64_t v)
{
    return (int)(v % 1);
}

static int64_t vertex_local(int64_t v)
{
    return v / 1;
}

static void edge_range(int64_t v, int64_t *b, int64_t *e)
{
    *b = rowstart[v];
    *e = rowstart[v + 1];
}

long bfs(int64_t root)
{
    long head = 0, tail = 0, nvisit = 0;
    for (long i = 0; i < NV / 64; i++)
        visited[i] = 0;
    set_bit(visited, root);
    pred[root] = root;
    queue[tail++] = root;
    while (head < tail) {
        int64_t u = queue[head++], b, e;
        edge_range(vertex_local(u), &b, &e);
        for (int64_t k = b; k < e; k++) {
            int64_t v = col[k];
            if (vertex_owner(v) != 0)
                continue;
            if (!test_bit(visited, vertex_local(v))) {
                set_bit(visited, vertex_local(v));
                pred[v] = u;
                queue[tail++] = v;
                nvisit++;
            }
        }
    }
    return nvisit;
}

int main(int argc, char **argv)
{
    int roots = argc > 1 ? atoi(argv[1]) : 24;
    uint64_t s = 99;
    long ne = NV * EF;
    MPI_Init(&argc, &argv);
    rowstart = calloc(NV + 1, sizeof *rowstart);
    col = malloc(2 * ne * sizeof *col);
    pred = malloc(NV * sizeof *pred);
    queue = malloc(NV * sizeof *queue);
    visited = malloc(NV / 64 * sizeof *visited);
    int64_t *src = malloc(ne * sizeof *src), *dst = malloc(ne * sizeof *dst);
    for (long i = 0; i < ne; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        src[i] = (s >> 20) % NV;
        dst[i] = (s >> 40) % NV;
        rowstart[src[i] + 1]++;
        rowstart[dst[i] + 1]++;
    }
    for (long v = 0; v < NV; v++)
        rowstart[v + 1] += rowstart[v];
    int64_t *fill = calloc(NV, sizeof *fill);
    for (long i = 0; i < ne; i++) {
        col[rowstart[src[i]] + fill[src[i]]++] = dst[i];
        col[rowstart[dst[i]] + fill[dst[i]]++] = src[i];
    }
    double t0 = MPI_Wtime();
    long sum = 0;
    for (int r = 0; r < roots; r++)
        sum += bfs((int64_t)((r * 7919L) % NV));
    double t = MPI_Wtime() - t0;
    printf("visited %ld\nkernel_s %.4f\n", sum, t);
    MPI_Finalize();
    return 0;
}
