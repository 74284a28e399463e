/* tests/instrument/tiny/short.h -- a helper defined in a header: never
 * instrumented, so a wrapper calling it is the only region measuring it. */
static double hdr_work(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += (double)i * 0.5;
    return s;
}
