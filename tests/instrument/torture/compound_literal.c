/* A call statement creating a compound literal whose address outlives the
 * statement: wrapping it in a block would end the literal's lifetime, so it
 * is left alone.  Other call statements are wrapped.
 * EXPECT: memcpy@20 1
 * WARN: compound literal
 */
#include <stdio.h>
#include <string.h>

struct pt { int x, y; };

static struct pt *keep(struct pt *p) { return p; }

int main(void)
{
    struct pt *p;
    char buf[8];
    p = keep(&(struct pt){3, 4});
    p = memcpy(&(struct pt){0, 0}, p, sizeof *p);
    memcpy(buf, "abcdefg", 8);
    printf("%d %d %s\n", p->x, p->y, buf);
    return 0;
}
