/* tests/instrument/tiny/shift.c -- loops that at least halve their
 * controlling integer (docs/instrument.md, "Small regions", bisection
 * loop): a for loop stepping through the bytes of an unsigned integer, a
 * while loop dividing by 10, and the loops that are not bounded that way
 * (a signed variable shifted right, a body that writes the variable, a
 * halving in the initialisation only).  Used by tests/e2e/instrument_tiny.t. */
#include <stdio.h>

static unsigned long table[8][256];

/* the bytes of x, 8 at most: a bounded search function */
unsigned long by_bytes(unsigned long x)
{
    unsigned long acc = 0;
    int b;
    for (b = 0; x; ++b, x >>= 8)
        acc ^= table[b & 7][x & 0xff];
    return acc;
}

/* decimal digits: at most 20 divisions */
int digits(long n)
{
    int d = 1;
    while (n > 9) {
        n /= 10;
        d++;
    }
    return d;
}

/* a signed x: -1 >> 1 is -1, the loop would not end: instrumented */
int signed_shift(long x)
{
    int n = 0;
    for (; x; x >>= 1)
        n++;
    return n;
}

/* the body writes x: instrumented */
int grows(unsigned long x)
{
    int n = 0;
    for (; x > 0; x >>= 1) {
        n++;
        if (n < 3)
            x += 100;
    }
    return n;
}

/* a halving only in the initialisation: instrumented */
int init_half(int n)
{
    int s = 0;
    for (int i = n / 2; i < n; i++)
        s += i;
    return s;
}

int main(void)
{
    printf("%lu %d %d %d %d\n", by_bytes(12345), digits(12345), signed_shift(5), grows(9), init_half(9));
    return 0;
}
