/* tests/instrument/tiny/short.h -- helpers defined in a header: never
 * instrumented, so a wrapper calling hdr_work() (a loop) is the only region
 * measuring it; hdr_alloc() and hdr_align() are cheap (no loop, a few
 * statements, getenv/atoi/posix_memalign/free only: PRK's prk_malloc). */
#include <stdlib.h>
static inline int hdr_align(void)
{
    char *t = getenv("HDR_ALIGN");
    int a = t ? atoi(t) : 64;
    if (a < 8)
        a = 8;
    return a;
}
static inline void *hdr_alloc(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, (size_t)hdr_align(), n))
        p = NULL;
    return p;
}
static inline void hdr_release(void *p)
{
    free(p);
}
static double hdr_work(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += (double)i * 0.5;
    return s;
}
