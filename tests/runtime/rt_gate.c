/*
 * tests/runtime/rt_gate.c -- throttled calling contexts gated at the probe
 * (runtime/aa_probe.h, aa_runtime_enter_scope): a tiny leaf entered through
 * the scope form 300,000 times under hot() is throttled and then only
 * counted inline; the same leaf under heavy() (50 long visits) stays
 * measured; a tiny leaf entered through aa_runtime_enter/exit 300,000 times
 * takes the runtime's throttled path; a tiny function whose child is
 * gated is gated with it in its caller once throttled; a tiny leaf doing
 * I/O is gated and its I/O stays its own; two threads gate the leaf each in
 * their own tree.  The shape of a message layer's send (graph500's
 * aml_send): a tiny caller() calling a tiny sender() 300,000 times, where
 * sender() now and then runs a measured handler() (before and after
 * throttling), a region late() first entered after it was gated, and a
 * write: both are gated, and the measured children and the I/O stay
 * exactly where they run.  Every visit is counted: visits + untimed_visits
 * is exact.  Throttling tiers: warm() calls the leaf 30,000 times with a
 * few hundred ns of work (between 100 ns and 1 us per visit), throttled
 * by the default rule after 10,000 visits, not after 1,000 (where hot()'s
 * leaf of a few ns is).  With the argument "tiers": hot() and naps(),
 * whose nap() sleeps 12 ms 110 times (a mean far from the tiers' limits
 * of AUTOANALYZER_THROTTLE=1000,1000000,10 however loaded the machine).
 * Prints a checksum that must not depend on the runtime; with
 * RT_GATE_SHOW_OFF set, also prints on stderr whether the scope probes are
 * stopped at the gates (AUTOANALYZER_DISABLE).
 */
#include <pthread.h>

#include "tests/runtime/rt_common.h"

RT_REGION(r_main, 1, 0, 1, 10, "main", "main");
RT_REGION(r_hot, 2, 0, 1, 20, "hot", "hot");
RT_REGION(r_heavy, 3, 0, 1, 30, "heavy", "heavy");
RT_REGION(r_leaf, 4, 0, 1, 40, "leaf", "leaf");
RT_REGION(r_pair, 5, 0, 1, 50, "pair_leaf", "pair_leaf");
RT_REGION(r_pairs, 6, 0, 1, 60, "pairs", "pairs");
RT_REGION(r_thr, 7, 0, 1, 70, "worker", "worker");
RT_REGION(r_outer, 8, 0, 1, 80, "outer", "outer");
RT_REGION(r_mid, 9, 0, 1, 90, "mid", "mid");
RT_REGION(r_io, 10, 0, 1, 100, "io_leaf", "io_leaf");
RT_REGION(r_ios, 11, 0, 1, 110, "ios", "ios");
RT_REGION(r_sends, 12, 0, 1, 120, "sends", "sends");
RT_REGION(r_caller, 13, 0, 1, 130, "caller", "caller");
RT_REGION(r_sender, 14, 0, 1, 140, "sender", "sender");
RT_REGION(r_handler, 15, 0, 1, 150, "handler", "handler");
RT_REGION(r_late, 16, 0, 1, 160, "late", "late");
RT_REGION(r_warm, 17, 0, 1, 170, "warm", "warm");
RT_REGION(r_nap, 18, 0, 1, 180, "nap", "nap");
RT_REGION(r_naps, 19, 0, 1, 190, "naps", "naps");

static unsigned long acc;

static unsigned long leaf(unsigned long x, int work)
{
    AA_RUNTIME_SCOPE(r_leaf);
    for (int i = 0; i < work; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    return x >> 7;
}

static unsigned long pair_leaf(unsigned long x)
{
    unsigned long y;
    aa_runtime_enter(&r_pair);
    y = x * 2654435761ul + 1;
    aa_runtime_exit(&r_pair);
    return y;
}

static void hot(void)
{
    AA_RUNTIME_SCOPE(r_hot);
    for (int i = 0; i < 300000; i++)
        acc += leaf((unsigned long)i, 1);
}

static void heavy(void)
{
    AA_RUNTIME_SCOPE(r_heavy);
    for (int i = 0; i < 50; i++)
        acc += leaf((unsigned long)i, 200000);
}

/* 30,000 visits of a few hundred ns each (200 dependent multiply-adds) */
static void warm(void)
{
    AA_RUNTIME_SCOPE(r_warm);
    for (int i = 0; i < 30000; i++)
        acc += leaf((unsigned long)i, 200);
}

/* 110 visits of at least 12 ms each (a sleep: the load can only make it
 * longer), for the tiers of AUTOANALYZER_THROTTLE=1000,1000000,10 */
static void nap(void)
{
    AA_RUNTIME_SCOPE(r_nap);
    usleep(12000);
}

static void naps(void)
{
    AA_RUNTIME_SCOPE(r_naps);
    for (int i = 0; i < 110; i++)
        nap();
}

static void pairs(void)
{
    AA_RUNTIME_SCOPE(r_pairs);
    for (int i = 0; i < 300000; i++)
        acc += pair_leaf((unsigned long)i);
}

/* a tiny function whose only child (leaf) is gated in it: once throttled
 * itself, it is gated in outer() with its child */
static unsigned long mid(unsigned long x)
{
    AA_RUNTIME_SCOPE(r_mid);
    return leaf(x, 1) + 1;
}

static void outer(void)
{
    AA_RUNTIME_SCOPE(r_outer);
    for (int i = 0; i < 300000; i++)
        acc += mid((unsigned long)i);
}

/* a tiny leaf doing I/O: gated once throttled, its I/O stays its own */
static void io_leaf(int fd)
{
    AA_RUNTIME_SCOPE(r_io);
    if (write(fd, "x", 1) != 1)
        acc++;
}

static void ios(void)
{
    int fd = open("/dev/null", O_WRONLY);
    AA_RUNTIME_SCOPE(r_ios);
    for (int i = 0; i < 150000; i++)
        io_leaf(fd);
    close(fd);
}

/* measured children of the tiny sender(): long visits, never throttled */
static unsigned long handler(unsigned long x)
{
    AA_RUNTIME_SCOPE(r_handler);
    return leaf(x, 20000);
}

static unsigned long late(unsigned long x)
{
    AA_RUNTIME_SCOPE(r_late);
    return leaf(x, 20000) + 3;
}

static unsigned long sender(int i, int fd)
{
    AA_RUNTIME_SCOPE(r_sender);
    unsigned long x = (unsigned long)i * 2654435761ul;
    if (i % 20000 == 7)
        x += handler(x);
    if (i >= 150000 && i % 50000 == 0)
        x += late(x);
    if (i % 50000 == 1 && write(fd, "x", 1) != 1)
        x++;
    return x;
}

static unsigned long caller(int i, int fd)
{
    AA_RUNTIME_SCOPE(r_caller);
    return sender(i, fd) >> 3;
}

static void sends(void)
{
    int fd = open("/dev/null", O_WRONLY);
    AA_RUNTIME_SCOPE(r_sends);
    for (int i = 0; i < 300000; i++)
        acc += caller(i, fd);
    close(fd);
}

static void *worker(void *arg)
{
    unsigned long s = 0;
    AA_RUNTIME_SCOPE(r_thr);
    for (int i = 0; i < 200000; i++)
        s += leaf((unsigned long)i, 1);
    *(unsigned long *)arg = s;
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[2];
    unsigned long res[2];
    if (argc > 1 && strcmp(argv[1], "tiers") == 0) {
        AA_RUNTIME_SCOPE(r_main);
        hot();
        naps();
        printf("checksum %lu\n", acc);
        return 0;
    }
    {
        AA_RUNTIME_SCOPE(r_main);
        hot();
        heavy();
        hot();
        pairs();
        outer();
        ios();
        sends();
        warm();
        if (getenv("RT_GATE_SHOW_OFF"))
            fprintf(stderr, "scope probes stopped at the gates: %d\n",
                    aa_runtime_gates_at && aa_runtime_gates_at->off);
        for (int k = 0; k < 2; k++)
            pthread_create(&th[k], NULL, worker, &res[k]);
        for (int k = 0; k < 2; k++)
            pthread_join(th[k], NULL);
    }
    printf("checksum %lu %lu %lu\n", acc, res[0], res[1]);
    return 0;
}
