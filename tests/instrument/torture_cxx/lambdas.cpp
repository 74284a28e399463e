// Lambdas, each a region named by its enclosing function and line: plain,
// capturing, generic, nested, recursive through std::function, passed to
// std::sort, immediately invoked; a constexpr lambda and one in a constant
// expression are left out.
// EXPECT: main/lambda@24 4
// EXPECT: main/lambda@25 3
// EXPECT: main/lambda@27 1
// EXPECT: main/lambda@27/lambda@28 3
// EXPECT: main/lambda@33 10
// EXPECT: apply/lambda@19 1
// EXPECT: main/lambda@40 2
// EXPECT: main/lambda@41 1
// MAP: name="main/lambda@38".*reason="constexpr function
// FLAGS: -std=c++17
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>
template <typename F> int apply(F f, int x) { auto twice = [&](int y) { return f(f(y)); }; return twice(x); }

int main()
{
    int total = 0;
    auto add = [&total](int x) { total += x; std::printf("add %d\n", x); };
    auto gen = [](auto a, auto b) { for (int i = 0; i < 1; i++) std::printf("gen\n"); return a + b; };
    std::vector<int> v{5, 3, 9, 1};
    auto outer = [&]() {
        auto inner = [&](int k) { for (int i = 0; i < k; i++) add(i); };
        inner(1);
        inner(2);
        inner(1);
    };
    std::function<int(int)> fib = [&](int n) -> int { if (n < 2) return n; return fib(n - 1) + fib(n - 2); };
    outer();
    std::sort(v.begin(), v.end(), [](int a, int b) { return a < b; });
    std::printf("%d %g %d\n", gen(1, 2), gen(1.5, 2.0), gen(3, 4));
    std::printf("fib %d total %d first %d\n", fib(4) - fib(0) * 0, total, v[0]);
    constexpr auto sq = [](int x) constexpr { return x * x; };
    static_assert(sq(3) == 9, "constexpr lambda");
    std::printf("%d %zu\n", apply([](int x) { return x + 1; }, 1), sizeof(decltype(sq)));
    return [&] { std::printf("iife\n"); return total - 4; }();
}
