// Classes: constructors and destructors, in-class and out-of-class methods,
// virtual functions through a base pointer, operator overloads, static
// members, nested namespaces, an anonymous namespace, RAII, extern "C".
// EXPECT: shapes::Shape::Shape 3
// EXPECT: shapes::Shape::~Shape 3
// EXPECT: shapes::Circle::area 2
// EXPECT: shapes::Square::area 1
// EXPECT: shapes::Shape::describe 3
// EXPECT: shapes::Registry::add 3
// EXPECT: num::detail::Vec3::operator+ 2
// EXPECT: num::detail::Vec3::operator[] 3
// EXPECT: (anonymous)::Lock::Lock 1
// EXPECT: loop@82 1
// MAP: name="c_api" function="c_api"
// DEFMAP: name="shapes::Shape::count".*reason="tiny leaf function"
#include <cstdio>
#include <memory>
#include <vector>

namespace shapes {
class Shape {
public:
    explicit Shape(const char *n) : name_(n) {
        count_++;
        std::printf("make %s\n", name_);
    }
    virtual ~Shape() {
        count_--;
        std::printf("drop %s\n", name_);
    }
    virtual double area() const = 0;
    void describe() const;
    static int count() { return count_; }

private:
    const char *name_;
    static int count_;
};
int Shape::count_ = 0;

void Shape::describe() const
{
    std::printf("%s: %.2f (of %d)\n", name_, area(), count_);
}

struct Circle : Shape {
    double r;
    explicit Circle(double rr) : Shape("circle"), r(rr) {}
    double area() const override { return 3.0 * r * r; }
};

struct Square : Shape {
    double a;
    explicit Square(double aa) : Shape("square"), a(aa) {}
    double area() const override;
};
double Square::area() const { return a * a; }

struct Registry {
    std::vector<std::unique_ptr<Shape>> all;
    void add(Shape *s) { all.emplace_back(s); std::printf("added %zu\n", all.size()); }
};
} // namespace shapes

namespace num { namespace detail {
struct Vec3 {
    double v[3];
    Vec3 operator+(const Vec3 &o) const { Vec3 r; for (int i = 0; i < 3; i++) r.v[i] = v[i] + o.v[i]; std::printf("plus\n"); return r; }
    double operator[](int i) const { std::printf("idx %d\n", i); return v[i]; }
};
}} // namespace num::detail

namespace {
struct Lock {
    int *held;
    explicit Lock(int *h) : held(h) { *held = 1; std::printf("lock\n"); }
    ~Lock() { *held = 0; std::printf("unlock\n"); }
};
void run_locked(int *flag)
{
    Lock l(flag);
    for (int i = 0; i < 2; i++) {
        if (i == 1)
            return;
        std::printf("locked %d\n", *flag);
    }
}
} // namespace

int main()
{
    shapes::Registry reg;
    int flag = 0;
    reg.add(new shapes::Circle(1.0));
    reg.add(new shapes::Square(2.0));
    reg.add(new shapes::Circle(0.5));
    for (auto &s : reg.all)
        s->describe();
    num::detail::Vec3 a{{1, 2, 3}}, b{{4, 5, 6}};
    num::detail::Vec3 c = a + b + a;
    std::printf("%g %g %g\n", c[0], c[1], c[2]);
    run_locked(&flag);
    std::printf("flag %d count %d\n", flag, shapes::Shape::count());
    return 0;
}

extern "C" {
int c_api(int x);
int c_api(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++)
        s += std::printf("%d", i);
    return s;
}
}
