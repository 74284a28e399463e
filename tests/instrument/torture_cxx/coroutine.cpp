// Coroutines (C++20): a generator whose body the compiler turns into a
// state machine is left out (listed in the map); the promise type's
// methods and the function consuming it are instrumented.  (Gen is
// movable: clang 14, which parses it, needs that for the return object.)
// FLAGS: -std=c++20
// EXPECT: consume 1
// MAP: name="count_to".*reason="coroutine
#include <coroutine>
#include <cstdio>

struct Gen {
    struct promise_type {
        int value = 0;
        Gen get_return_object() { return Gen{std::coroutine_handle<promise_type>::from_promise(*this)}; }
        std::suspend_always initial_suspend() noexcept { return {}; }
        std::suspend_always final_suspend() noexcept { return {}; }
        std::suspend_always yield_value(int v) { value = v; return {}; }
        void return_void() {}
        void unhandled_exception() {}
    };
    std::coroutine_handle<promise_type> h;
    explicit Gen(std::coroutine_handle<promise_type> hh) : h(hh) {}
    Gen(Gen &&o) noexcept : h(o.h) { o.h = nullptr; }
    Gen(const Gen &) = delete;
    ~Gen() { if (h) h.destroy(); }
    bool next() { h.resume(); return !h.done(); }
};

Gen count_to(int n)
{
    for (int i = 1; i <= n; i++)
        co_yield i;
}

int consume(int n)
{
    int s = 0;
    Gen g = count_to(n);
    while (g.next()) {
        s += g.h.promise().value;
        std::printf("got %d\n", g.h.promise().value);
    }
    return s;
}

int main() { return consume(4) == 10 ? 0 : 1; }
