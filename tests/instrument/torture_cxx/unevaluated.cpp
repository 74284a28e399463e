// Lambdas in unevaluated or constant operands (C++20): in decltype, sizeof
// and static_assert a probe could not run or would make the expression
// non-constant; they are left out with their reason in the map, the
// function around them is instrumented.
// FLAGS: -std=c++20
// EXPECT: main 1
// MAP: name="main/lambda@13".*reason="lambda in an unevaluated or constant operand"
// MAP: name="main/lambda@15".*reason="lambda in an unevaluated or constant operand"
// MAP: name="main/lambda@16".*reason="lambda in an unevaluated or constant operand"
#include <cstdio>
int main()
{
    using L = decltype([] { return 5; });
    L l;
    std::printf("%zu %d\n", sizeof([](int x) { return x; }), l());
    static_assert([] { return 2; }() == 2);
    return 0;
}
