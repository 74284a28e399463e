/*
 * samples/particles.cpp -- C++ load-imbalance sample for AutoAnalyzer.
 *
 * A toy particle code written the way C++ MPI codes are: a class template
 * for the particle store (ParticleSet<T>), a domain class in a namespace
 * (sim::Domain) whose methods move, collide and reduce the particles, and
 * lambdas for the force law and the per-step diagnostics.  Every rank owns
 * the same number of particles, but on ranks with `rank % 4 == 3` the
 * particles sit in a dense region and the collision check runs
 * DENSE_FACTOR times as many neighbour tests per particle.
 *
 * THE BOTTLENECK (a dissimilarity bottleneck, i.e. load imbalance):
 *   method sim::Domain::collide(), its loop over particles
 *       for (std::size_t i = 0; i < n; i++)       <- loop over particles
 *           for (int k = 0; k < neighbours; k++)  <- see the line marked
 *               ...                                  "IMBALANCE HERE"
 *   `neighbours` is DENSE_FACTOR (6) times larger on the dense ranks, so
 *   they spend about 6 times as long in this loop; the other ranks wait in
 *   the MPI_Allreduce of sim::Domain::reduce() that follows.  move() and
 *   the lambdas are balanced.
 *
 * BOTTLENECK-AT: sim::Domain::collide() line 101 ("IMBALANCE HERE")
 *
 * Usage: mpirun -np 4 particles [-s small|large] [-n ITER]
 * Output: result lines and `checksum: <value>`, an unsigned 64-bit integer
 * (modular sum over ranks), independent of timing and scheduling.
 */
#define OMPI_SKIP_MPICXX 1 /* the C API only: no deprecated C++ bindings */
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <functional>
#include <vector>

namespace {
constexpr std::size_t PARTICLES_SMALL = 16384;
constexpr std::size_t PARTICLES_LARGE = 49152;
constexpr int BASE_NEIGHBOURS = 32;
constexpr int DENSE_FACTOR = 6;
constexpr int ITERS_DEFAULT = 30;

bool is_dense(int rank) { return rank % 4 == 3; }

/* xorshift-multiply mixing: exact and portable integer "physics" */
std::uint64_t mix(std::uint64_t v, std::uint64_t k)
{
    v ^= k + 0x9e3779b97f4a7c15ULL;
    v ^= v >> 31;
    v *= 0xbf58476d1ce4e5b9ULL;
    v ^= v >> 29;
    return v;
}
} // namespace

/* The particle store: positions and momenta as integers of type T. */
template <typename T> class ParticleSet {
public:
    explicit ParticleSet(std::size_t n) : pos_(n), mom_(n) {}
    void seed(int rank)
    {
        for (std::size_t i = 0; i < pos_.size(); i++) {
            pos_[i] = static_cast<T>(mix(static_cast<std::uint64_t>(rank) * 1000003u + i, 17));
            mom_[i] = static_cast<T>(mix(i, 29));
        }
    }
    std::size_t size() const { return pos_.size(); }
    T &pos(std::size_t i) { return pos_[i]; }
    T &mom(std::size_t i) { return mom_[i]; }

private:
    std::vector<T> pos_, mom_;
};

namespace sim {
class Domain {
public:
    Domain(std::size_t n, int rank)
        : parts_(n), neighbours_(is_dense(rank) ? BASE_NEIGHBOURS * DENSE_FACTOR : BASE_NEIGHBOURS)
    {
        parts_.seed(rank);
    }

    /* balanced: every particle moves by its momentum under the force law */
    void move(int iter, const std::function<std::uint64_t(std::uint64_t, int)> &force)
    {
        for (std::size_t i = 0; i < parts_.size(); i++)
            parts_.pos(i) += force(parts_.mom(i), iter);
    }

    /* the imbalanced kernel: dense ranks test DENSE_FACTOR times the neighbours */
    void collide(int iter)
    {
        const std::size_t n = parts_.size();
        for (std::size_t i = 0; i < n; i++) {
            std::uint64_t v = parts_.pos(i);
            for (int k = 0; k < neighbours_; k++) {
                v = mix(v, static_cast<std::uint64_t>(iter * 131 + k)); /* IMBALANCE HERE */
            }
            parts_.mom(i) ^= v >> 11;
        }
    }

    /* local energy, then the global sum the light ranks wait in */
    std::uint64_t reduce()
    {
        std::uint64_t local = 0, global = 0;
        for (std::size_t i = 0; i < parts_.size(); i++)
            local += parts_.mom(i) >> 3;
        MPI_Allreduce(&local, &global, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        return global;
    }

    std::uint64_t digest()
    {
        std::uint64_t d = 0;
        for (std::size_t i = 0; i < parts_.size(); i++)
            d += parts_.pos(i) & 0xffffu;
        return d;
    }

private:
    ParticleSet<std::uint64_t> parts_;
    int neighbours_;
};
} // namespace sim

static int parse_args(int argc, char **argv, std::size_t *n, int *iters)
{
    *n = PARTICLES_SMALL;
    *iters = ITERS_DEFAULT;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "-s") && i + 1 < argc) {
            const char *s = argv[++i];
            if (!std::strcmp(s, "small"))
                *n = PARTICLES_SMALL;
            else if (!std::strcmp(s, "large"))
                *n = PARTICLES_LARGE;
            else
                return -1;
        } else if (!std::strcmp(argv[i], "-n") && i + 1 < argc) {
            char *end;
            long v = std::strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 100000)
                return -1;
            *iters = static_cast<int>(v);
        } else {
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rank, size, iters;
    std::size_t n;
    std::uint64_t total = 0, checksum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &n, &iters) != 0) {
        if (rank == 0)
            std::fprintf(stderr, "usage: %s [-s small|large] [-n ITER]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    sim::Domain dom(n, rank);
    auto force = [](std::uint64_t m, int iter) { return (m >> 17) ^ static_cast<std::uint64_t>(iter); };
    std::uint64_t seen = 0;
    auto observe = [&seen](std::uint64_t e) { seen = mix(seen, e); };
    for (int it = 0; it < iters; it++) {
        dom.move(it, force);
        dom.collide(it);
        total = dom.reduce();
        observe(total);
    }
    std::uint64_t local = (total ^ seen) + dom.digest();
    MPI_Reduce(&local, &checksum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int ndense = 0;
        for (int r = 0; r < size; r++)
            ndense += is_dense(r);
        std::printf("particles: %d ranks (%d dense), %zu particles per rank, %d iterations\n", size,
                    ndense, n, iters);
        std::printf("neighbour tests per particle: %d (dense ranks %d)\n", BASE_NEIGHBOURS,
                    BASE_NEIGHBOURS * DENSE_FACTOR);
        std::printf("checksum: %llu\n", static_cast<unsigned long long>(checksum));
    }
    MPI_Finalize();
    return 0;
}
