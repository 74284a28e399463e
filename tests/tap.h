/*
 * tests/tap.h -- a minimal TAP producer for the C unit tests.
 *
 * Each test program includes this header, calls the check macros, and ends
 * with `return tap_done();`, which prints the plan and returns non-zero when
 * any check failed.  `prove --exec ''` reads the output.
 */
#ifndef AA_TESTS_TAP_H
#define AA_TESTS_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    tap_n++;
    printf("%sok %d - ", cond ? "" : "not ", tap_n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!cond) {
        tap_failed++;
        printf("#   failed at %s:%d\n", file, line);
    }
    fflush(stdout);
    return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_int(got, want, name)                                                 \
    do {                                                                        \
        long long g_ = (long long)(got), w_ = (long long)(want);                \
        if (!ok(g_ == w_, "%s", name))                                          \
            printf("#   got %lld, want %lld\n", g_, w_);                        \
    } while (0)

#define is_str(got, want, name)                                                 \
    do {                                                                        \
        const char *g_ = (got), *w_ = (want);                                   \
        if (!ok(g_ && w_ && strcmp(g_, w_) == 0, "%s", name))                   \
            printf("#   got \"%s\", want \"%s\"\n", g_ ? g_ : "(null)",         \
                   w_ ? w_ : "(null)");                                         \
    } while (0)

#define is_double(got, want, tol, name)                                         \
    do {                                                                        \
        double g_ = (got), w_ = (want);                                         \
        if (!ok(fabs(g_ - w_) <= (tol), "%s", name))                            \
            printf("#   got %.17g, want %.17g\n", g_, w_);                      \
    } while (0)

#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

static inline int tap_done(void)
{
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}

#endif
