/*
 * bench/edge_probes/cxx_stl.cpp -- edge probe: the imbalance inside library
 * code.  Each rank fills the same key array, then sorts its share of it
 * with std::sort (a header template, never instrumented) in
 * `Bins::reorder`; rank 1 sorts four times the keys of the others.  All
 * compute alike in `Bins::push`.
 * Expected: rank 1 alone, the innermost region `Bins::reorder`, the method
 * whose library call holds the time.
 */
#include <mpi.h>
#include <algorithm>
#include <cstdio>
#include <vector>
struct Bins {
    std::vector<unsigned> keys;
    void fill(std::size_t n, unsigned seed)
    {
        keys.resize(n);
        for (std::size_t i = 0; i < n; i++) {
            seed = seed * 1664525u + 1013904223u;
            keys[i] = seed;
        }
    }
    void reorder(std::size_t n) { std::sort(keys.begin(), keys.begin() + n); }
    double push(long n)
    {
        double s = 0;
        for (long i = 0; i < n; i++)
            s += (i % 9) * 0.5 + s * 1e-12;
        return s;
    }
};
int main(int argc, char **argv)
{
    int rank;
    double tot = 0, s;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    Bins b;
    for (int step = 0; step < 15; step++) {
        b.fill(400000, 7u * step + 1u);
        b.reorder(rank == 1 ? 400000 : 100000);
        s = b.push(2000000) + b.keys[0] * 1e-9;
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        std::printf("checksum: %.3e\n", tot);
    MPI_Finalize();
    return 0;
}
