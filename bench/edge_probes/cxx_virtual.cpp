// bench/edge_probes/cxx_virtual.cpp -- edge probe (C++): the imbalance in
// a virtual method's override.  Every rank holds cells of two kinds in a
// std::vector<std::unique_ptr<Cell>> and steps them through the virtual
// Cell::step; each rank has 40 Solid cells and 40 Fluid cells, rank 1 120
// Fluid cells.  Expected: rank 1 alone, the innermost region
// `Fluid::step`.
#include <mpi.h>
#include <cstdio>
#include <memory>
#include <vector>
struct Cell { virtual ~Cell() {} virtual double step(long n) = 0; };
struct Solid : Cell { double step(long n) override { double s = 0; for (long i = 0; i < n; i++) s += (i % 5) * 0.5; return s; } };
struct Fluid : Cell { double step(long n) override { double s = 0; for (long i = 0; i < n; i++) s += (i % 9) * 0.25; return s; } };
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::vector<std::unique_ptr<Cell>> cells;
    for (int i = 0; i < 40; i++)
        cells.emplace_back(new Solid);
    for (int i = 0; i < (rank == 1 ? 120 : 40); i++)
        cells.emplace_back(new Fluid);
    double tot = 0;
    for (int t = 0; t < 30; t++) {
        double s = 0;
        for (auto &c : cells)
            s += c->step(40000);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        std::printf("checksum: %.1f\n", tot);
    MPI_Finalize();
    return 0;
}
