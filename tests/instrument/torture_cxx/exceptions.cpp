// Exceptions thrown through regions and caught above: from a nested loop
// two functions down, rethrown, thrown from a constructor, from a lambda,
// by the standard library (std::vector::at); a function-try-block is left
// out.  Every region the exception leaves must be closed by its guard.
// EXPECT: deep 3
// EXPECT: middle 3
// EXPECT: loop@21 3
// EXPECT: Widget::Widget 2
// EXPECT: main/lambda@60 1
// MAP: name="Guarded::Guarded".*reason="function-try-block
#include <cstdio>
#include <stdexcept>
#include <vector>

struct Fail {
    int code;
};

int deep(int n)
{
    for (int i = 0; i < 10; i++) {
        for (int j = 0; j < 10; j++) {
            if (i * 10 + j == n)
                throw Fail{n};
        }
    }
    return -1;
}

int middle(int n)
{
    try {
        return deep(n);
    } catch (Fail &f) {
        std::printf("middle saw %d\n", f.code);
        if (f.code > 50)
            throw;
        return f.code;
    }
}

struct Widget {
    std::vector<int> v;
    explicit Widget(int n) : v(3)
    {
        std::printf("widget %d\n", n);
        if (n < 0)
            throw std::invalid_argument("negative");
    }
};

struct Guarded {
    int x;
    explicit Guarded(int n) try : x(n) { if (n == 0) throw 1; } catch (...) { std::printf("ctor failed\n"); }
};

int main()
{
    int got = 0;
    auto thrower = [](int k) { if (k > 2) throw std::runtime_error("lambda"); return k; };
    got += middle(12);
    try {
        got += middle(77);
    } catch (const Fail &f) {
        std::printf("main caught %d\n", f.code);
    }
    try {
        Widget w(1);
        Widget bad(-1);
    } catch (const std::exception &e) {
        std::printf("caught %s\n", e.what());
    }
    try {
        std::vector<int> v(2);
        for (int i = 0;; i++)
            got += v.at(i);
    } catch (const std::out_of_range &) {
        std::printf("out of range\n");
    }
    try {
        Guarded g(0);
    } catch (int) {
        std::printf("rethrown from function-try-block\n");
    }
    try {
        thrower(5);
    } catch (const std::runtime_error &e) {
        std::printf("%s\n", e.what());
    }
    std::printf("got %d\n", got + middle(30));
    return 0;
}
