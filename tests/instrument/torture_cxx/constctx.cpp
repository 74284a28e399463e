// Lambdas in the other constant contexts (C++20): a template argument, an
// array bound and an `if constexpr` condition are evaluated by the
// compiler, so a probe there would not compile: they are left out with
// their reason, the functions around them are instrumented.  Lambdas
// initializing namespace-scope variables are regions of their own, named
// after the variable; one in a constexpr variable is left out.
// FLAGS: -std=c++20
// EXPECT: twice/lambda@29 1
// EXPECT: util::square/lambda@31 1
// EXPECT: pick 2
// EXPECT: main 1
// MAP: name="main/lambda@50".*reason="lambda in a template argument
// MAP: name="main/lambda@51".*reason="lambda in a template argument
// MAP: name="main/lambda@52".*reason="lambda in an array bound or subscript
// MAP: name="pick/lambda@42".*reason="lambda in an unevaluated or constant operand"
// MAP: name="three/lambda@38".*reason="lambda in a constexpr variable
// MAP: name="loop@33" function="util::square/lambda@31"
#include <array>
#include <cstdio>
#include <cstring>

template <int N> struct Fixed {
    int v[N];
};

namespace {
int unused_ = 0;
}
auto twice = [](int x) { return 2 * x; };
namespace util {
auto square = [](int x) {
    int r = 0;
    for (int i = 0; i < x; i++)
        r += x;
    return r;
};
} // namespace util
constexpr auto three = [] { return 3; };

template <typename T> int pick(T t)
{
    if constexpr ([] { return sizeof(T) > 4; }())
        return (int)t * 2;
    else
        return (int)t;
}

int main()
{
    std::array<int, [] { return 3; }()> a{};
    Fixed<[] { return 2; }()> f{};
    int b[([] { return 4; }())];
    std::memset(b, 0, sizeof b);
    a[1] = twice(3) + util::square(4) + three();
    f.v[0] = pick(7L) + pick(1);
    std::printf("%zu %d %d %zu %d\n", a.size(), a[1], f.v[0], sizeof b / sizeof b[0], unused_);
    return 0;
}
