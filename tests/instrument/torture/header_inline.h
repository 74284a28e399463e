#ifndef HEADER_INLINE_H
#define HEADER_INLINE_H
static inline int hdr_cube(int x)
{
    int r = 1;
    for (int i = 0; i < 3; i++)
        r *= x;
    return r;
}
#endif
