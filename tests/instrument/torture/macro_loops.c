/* Loops whose header a macro writes (FOR_EACH(i, n) { ... }): the statement
 * opens with a whole macro invocation and goes on in the file, so it is
 * wrapped as any loop is.  Left alone: a macro that also writes the
 * enclosing statement (an `if` around the loop), a declaration before the
 * loop (the braces would hide it), the loop's body braces, or a statement
 * right after a macro (it may end in a _Pragma): the braceless inner loop.
 * EXPECT: main 1
 * EXPECT: loop@33 1
 * EXPECT: loop@34 1
 * EXPECT: loop@36 1
 * EXPECT: loop@37 1
 * EXPECT: loop@38 1
 * EXPECT: loop@39 1
 * EXPECT: loop@40 1
 * EXPECT: loop@49 1
 * WARN: macro expansion
 */
#include <stdio.h>

#define FOR_EACH(i, n) for ((i) = 0; (i) < (n); (i)++)
#define M_IF(i, n) if ((n) > 0) for ((i) = 0; (i) < (n); (i)++)
#define TWO(i, j, n) for (i = 0; i < n; i++) for (j = 0; j < n; j++)
#define DECL_LOOP(i, n) int i; for (i = 0; i < n; i++)
#define LOOP_BEGIN(i, n) for (i = 0; i < n; i++) {
#define LOOP_END }
#define REPEAT do
#define WHILE_POS(x) while ((x) > 0)
#define ODD_ONLY(k, n) for (int k = 0; k < (n); k++) if (k % 2)

int main(void)
{
    int a[10], s = 0, i, j;
    for (i = 0; i < 10; i++) a[i] = i * 3 - 7;
    FOR_EACH(i, 10) s += a[i];
    M_IF(i, 10) { s += a[i]; } else { s = -1; }
    TWO(i, j, 3) { s += i * j; }
    REPEAT { s--; } while (s > 100);
    WHILE_POS(s - 50) { s -= 3; }
    ODD_ONLY(k, 10) { s += k; }
    FOR_EACH(i, 10) {
        if (a[i] > 20)
            break;
        s += a[i];
    }
    {
        DECL_LOOP(q, 10) { s += q; }
        s += q;
    }
    FOR_EACH(i, 10)
        FOR_EACH(j, 2) s += a[i] * j;
    LOOP_BEGIN(i, 10) s += 2 * a[i]; LOOP_END
    s += 1;
    printf("%d\n", s);
    return 0;
}
