// Templates: one region per template definition, whatever the number of
// instantiations; class-template members defined in and out of the class;
// an explicit specialization (a definition of its own, named with its
// arguments); variadic templates.
// EXPECT: sum 3
// EXPECT: Stack<T>::push 7
// EXPECT: Stack<T>::pop 3
// EXPECT: Stack<T>::Stack 2
// EXPECT: describe 1
// EXPECT: describe<std::basic_string<char>> 1
// EXPECT: count_args 3
// FLAGS: -std=c++17
#include <cstdio>
#include <string>
#include <vector>

template <typename T> T sum(const std::vector<T> &v)
{
    T s{};
    for (const T &x : v)
        s = s + x;
    return s;
}

template <typename T> class Stack {
public:
    Stack() { std::printf("stack of %zu-byte items\n", sizeof(T)); }
    void push(const T &x)
    {
        items_.push_back(x);
        if (items_.size() > 3)
            std::printf("deep %zu\n", items_.size());
    }
    T pop();
    bool empty() const { return items_.empty(); }

private:
    std::vector<T> items_;
};

template <typename T> T Stack<T>::pop()
{
    T x = items_.back();
    items_.pop_back();
    std::printf("pop\n");
    return x;
}

template <typename T> void describe(const T &x) { std::printf("generic %d\n", (int)sizeof x); }
template <> void describe<std::string>(const std::string &x) { std::printf("string %s\n", x.c_str()); }

inline int count_none() { std::printf("none\n"); return 0; }
template <typename H, typename... A> int count_args(H, A... a)
{
    if constexpr (sizeof...(a) > 0)
        return 1 + count_args(a...);
    else
        return 1 + count_none();
}

int main()
{
    std::printf("%d\n", sum(std::vector<int>{1, 2, 3}));
    std::printf("%g\n", sum(std::vector<double>{1.5, 2.5}));
    std::printf("%s\n", sum(std::vector<std::string>{"a", "b"}).c_str());
    Stack<int> si;
    Stack<std::string> ss;
    for (int i = 0; i < 5; i++)
        si.push(i);
    ss.push("x");
    ss.push("y");
    std::printf("%d %d %s\n", si.pop(), si.pop(), ss.pop().c_str());
    describe(3);
    describe(std::string("s"));
    std::printf("%d\n", count_args(1, 2.0, 'c'));
    return 0;
}
