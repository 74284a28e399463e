// std::thread: each thread has its own region stack; lambdas and member
// functions run in threads, a mutex-guarded counter.
// FLAGS: -pthread
// EXPECT: Pool::work 4
// EXPECT: main/lambda@30 4
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

struct Pool {
    std::mutex mu;
    long total = 0;
    void work(int id)
    {
        long local = 0;
        for (int i = 0; i < 1000; i++)
            local += i % (id + 1);
        std::lock_guard<std::mutex> g(mu);
        total += local;
    }
};

int main()
{
    Pool p;
    std::vector<std::thread> ts;
    for (int t = 0; t < 4; t++)
        ts.emplace_back(&Pool::work, &p, t);
    auto job = [&p](int k) { for (int i = 0; i < 10; i++) { std::lock_guard<std::mutex> g(p.mu); p.total += k; } };
    for (int t = 0; t < 4; t++)
        ts.emplace_back(job, t);
    for (auto &t : ts)
        t.join();
    std::printf("total %ld\n", p.total);
    return 0;
}
