/*
 * bench/edge_probes/template_method.cpp -- edge probe (C++): an imbalance
 * in a loop of a class template's method called through a std::function
 * lambda.  The last two ranks sweep 12 times a step, the others 4;
 * phys::light is the same everywhere.  Expected: ranks 2-3 (of 4), the
 * innermost region the sweep loop of Grid<T>::smooth.
 */
#include <mpi.h>
#include <cstdio>
#include <functional>
#include <vector>
template <typename T> class Grid {
    std::vector<T> v;
public:
    explicit Grid(size_t n) : v(n, T(1)) {}
    T smooth(int sweeps) {
        T s = 0;
        for (int k = 0; k < sweeps; k++)
            for (size_t i = 1; i + 1 < v.size(); i++) { v[i] = (v[i - 1] + v[i] + v[i + 1]) / T(3); s += v[i]; }
        return s;
    }
};
namespace phys { double light(long n) { double s = 0; for (long i = 0; i < n; i++) s += (i & 7) * 0.5; return s; } }
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    Grid<double> g(100000);
    std::function<double(int)> step = [&](int k) { return g.smooth(rank >= size - 2 ? 12 : 4) + phys::light(500000) + k; };
    double tot = 0;
    for (int k = 0; k < 25; k++) {
        double s = step(k);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        std::printf("checksum: %d\n", tot > 0);
    MPI_Finalize();
}
