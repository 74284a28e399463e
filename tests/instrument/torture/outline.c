/* The outlined form (docs/instrument.md, "The rewrite"): a C function's
 * probe in a wrapper of its own name, the body renamed NAME__aa_body
 * (static, noinline).  One function per shape: a value, void, a struct
 * returned, an earlier static prototype, a definition written static, a
 * K&R and an empty-prototype definition, a VLA and an array [static N]
 * parameter, recursion through the wrapper, the address taken, labels and
 * goto inside, a loop region inside with an early return, a multi-line
 * declaration with comments, a macro in the return type, an #ifdef in the
 * parameters, an assert, and the forms that keep the probe in the body:
 * variadic, __func__, an attribute, extern, and leaf() (nothing to inline:
 * no call to a function of the file).  one() gives the others a callee.
 * FLAGS: -std=gnu11
 * EXPECT: value 3
 * EXPECT: nothing 2
 * EXPECT: pair_of 1
 * EXPECT: early 1
 * EXPECT: written_static 1
 * EXPECT: knr 1
 * EXPECT: noproto 1
 * EXPECT: vla_sum 1
 * EXPECT: arr_static 1
 * EXPECT: fact 6
 * EXPECT: via_ptr 2
 * EXPECT: jumps 1
 * EXPECT: find 2
 * EXPECT: multi 1
 * EXPECT: macro_type 1
 * EXPECT: cond_params 1
 * EXPECT: sum_va 1
 * EXPECT: named 1
 * EXPECT: checked 1
 * EXPECT: attr 1
 * EXPECT: ext 1
 * EXPECT: leaf 1
 * EXPECT: main 1
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define REAL double

struct pair {
    int a, b;
};

static int early(int x);

/* what the functions below give the compiler to inline */
static int one(void)
{
    return 1;
}

int leaf(int x)
{
    return x + 1;
}

int value(int x)
{
    return x * 2 + one();
}

void nothing(int *p)
{
    if (!p)
        return;
    (*p) += one();
}

struct pair pair_of(int a, int b)
{
    struct pair p = {a, b};
    p.a *= one();
    return p;
}

int early(int x) /* static through the prototype above */
{
    return x > 0 ? x * one() : -x;
}

static long written_static(long v) { return v - one(); }

int knr(a, b)
int a;
int b;
{
    return a + b;
}

int noproto()
{
    return 6 + one();
}

double vla_sum(int n, int m, double a[n][m])
{
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += a[i][j] * one();
    return s;
}

int arr_static(const int v[static 3])
{
    return v[0] + v[1] + v[2] * one();
}

unsigned long fact(unsigned n)
{
    return n <= 1 ? (unsigned long)one() : n * fact(n - 1);
}

int via_ptr(int x)
{
    return x + 99 + one();
}

int jumps(int n)
{
    int i = 0, s = 0;
again:
    s += i * one();
    if (++i < n)
        goto again;
    return s;
}

int find(const int *a, int n, int key)
{
    for (int i = 0; i < n; i++)
        if (a[i] == key)
            return i * one();
    return -1;
}

int /* the type */
multi(int a, // first
      int b) /* second */
{
    return a * b * one();
}

REAL macro_type(REAL x)
{
    return x / 2 * one();
}

#ifdef EXTRA_PARAM
#define CP_EXTRA , 2
#else
#define CP_EXTRA
#endif
int cond_params(int a
#ifdef EXTRA_PARAM
                , int b
#endif
)
{
    return a + one();
}

int sum_va(int n, ...)
{
    va_list ap;
    int s = 0;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        s += va_arg(ap, int);
    va_end(ap);
    return s;
}

const char *named(void)
{
    (void)one();
    return __func__;
}

int checked(int x)
{
    assert(x >= 0);
    return x + one();
}

__attribute__((noinline)) int attr(int x)
{
    return x - 3;
}

extern int ext(int x)
{
    return x * 3;
}

int main(void)
{
    int k = 0, arr[4] = {5, 6, 7, 8};
    double m[2][3] = {{1, 2, 3}, {4, 5, 6}};
    int (*fp)(int) = via_ptr;
    struct pair p = pair_of(3, 4);
    nothing(&k);
    nothing(NULL);
    printf("%d %d %d %d %d\n", value(1), value(2), value(3), k, p.a + p.b);
    printf("%d %ld %d %d %g %d\n", early(-5), written_static(10), knr(1, 2), noproto(),
           vla_sum(2, 3, m), arr_static(arr));
    printf("%lu %d %d %d\n", fact(6), fp(1), fp(2), jumps(5));
    printf("%d %d %d %g %d\n", find(arr, 4, 7), find(arr, 4, 9), multi(6, 7), macro_type(3.0),
           cond_params(1 CP_EXTRA));
    printf("%d %s %d %d %d %d\n", sum_va(3, 1, 2, 3), named(), checked(4), attr(5), ext(2),
           leaf(1));
    return 0;
}
