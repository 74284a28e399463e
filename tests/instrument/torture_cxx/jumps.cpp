// Every way out of a region: return from inside nested loops, range-for
// with break and continue, goto out of a nested loop, goto backwards,
// switch with loops in cases, while/do loops, exit() from main's loop.
// EXPECT: find 3
// EXPECT: loop@21 3
// EXPECT: loop@22 6
// EXPECT: loop@34 1
// EXPECT: loop@42 1
// EXPECT: loop@54 1
// EXPECT: loop@73 1
// FLAGS: -std=c++17
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

int find(const std::vector<std::vector<int>> &m, int want)
{
    int n = 0;
    for (const auto &row : m) {
        for (int x : row) {
            n++;
            if (x == want)
                return n;
        }
    }
    return -n;
}

int scan(const std::map<std::string, int> &m)
{
    int s = 0;
    for (const auto &[k, v] : m) {
        if (k == "skip")
            continue;
        if (v < 0)
            break;
        s += v;
    }
    int i = 0, j = 0;
    for (i = 0; i < 10; i++)
        for (j = 0; j < 10; j++)
            if (i * j == 12)
                goto found;
    std::printf("not found\n");
found:
    std::printf("found %d %d\n", i, j);
    int tries = 0;
again:
    tries++;
    switch (tries) {
    case 1:
        for (int k = 0; k < 3; k++)
            if (k == 1)
                goto again;
        break;
    default:
        while (tries < 5)
            tries++;
    }
    do {
        s++;
    } while (s % 7);
    return s + tries;
}

int main()
{
    std::vector<std::vector<int>> m{{1, 2}, {3, 4}, {5, 6}};
    std::printf("%d %d %d\n", find(m, 2), find(m, 4), find(m, 9));
    std::printf("%d\n", scan({{"a", 1}, {"skip", 100}, {"b", 2}, {"z", -1}, {"zz", 5}}));
    for (int r = 0; r < 3; r++) {
        if (r == 2) {
            std::printf("exit\n");
            std::exit(3);
        }
    }
    return 0;
}
