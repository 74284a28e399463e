/* C99 inline definitions with external linkage may not reference the
 * static descriptor: left alone.  static inline is fine.
 * WARN: non-static inline
 * EXPECT: sq2 1
 */
#include <stdio.h>

inline int sq(int x) { return x * x; }
extern int sq(int x);
static inline int sq2(int x) { return x * x; }

int main(void)
{
    printf("%d %d\n", sq(3), sq2(4));
    return 0;
}
