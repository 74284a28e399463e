// What must never get a probe, each listed in the region map with its
// reason: constexpr and consteval functions (used in constant
// expressions), defaulted and deleted functions, an inline function (left
// out by default, instrumented with --mode all).  if constexpr, static_assert
// and a constexpr member are kept working.
// FLAGS: -std=c++20
// EXPECT: Matrix::trace 1
// EXPECT: inlined 1
// MAP: name="fact".*reason="constexpr function
// MAP: name="twice".*reason="consteval function
// MAP: name="Matrix::Matrix".*reason="defaulted function
// MAP: name="Matrix::operator=".*reason="deleted function
// MAP: name="Matrix::at".*reason="constexpr function
// DEFMAP: name="inlined".*reason="inline function"
#include <array>
#include <cstdio>

constexpr int fact(int n) { int r = 1; for (int i = 2; i <= n; i++) r *= i; return r; }
consteval int twice(int n) { return 2 * n; }

struct Matrix {
    std::array<double, 4> a{};
    Matrix() = default;
    Matrix(const Matrix &) = default;
    Matrix &operator=(Matrix &&) = delete;
    constexpr double at(int i) const { return a[static_cast<unsigned>(i)]; }
    double trace() const { double t = 0; for (int i = 0; i < 2; i++) t += a[i * 3u]; std::printf("trace\n"); return t; }
};

inline int inlined(int x) { return x + 1; }

template <typename T> int kind()
{
    if constexpr (sizeof(T) > 4)
        return 8;
    else
        return 4;
}

int main()
{
    static_assert(fact(5) == 120, "fact");
    std::array<int, fact(3)> six{};
    Matrix m;
    m.a[0] = 1;
    m.a[3] = 2;
    constexpr Matrix z{};
    static_assert(z.at(1) == 0.0, "at");
    std::printf("%zu %d %g %d %d %d\n", six.size(), twice(4), m.trace(), inlined(1), kind<double>(), kind<char>());
    return 0;
}
