/*
 * tests/runtime/rt_stdio.c -- I/O through every stdio family and the
 * metadata calls, against what the kernel saw.  Regions:
 *   write_region  ~1 MB through fprintf, vfprintf, printf, fputs, puts,
 *                 fputc, putc, putchar, fwrite, fflush and fclose (stdout
 *                 is flushed inside the region)
 *   read_region   the file read back with fread, fgets and fscanf
 *   meta_region   exactly 11 metadata calls: mkdir, open(O_CREAT), fsync,
 *                 fdatasync, ftruncate, close, stat, rename, lstat, unlink,
 *                 rmdir
 * Prints on stderr, after the regions, the truth from /proc/self/io:
 *   truth wchar=<bytes written in write_region> rchar=<bytes read in read_region>
 * Argument: a directory for the files.
 */
#include <stdarg.h>
#include <sys/stat.h>

#include "tests/runtime/rt_common.h"

RT_REGION(r_main, 1, 0, 1, 20, "main", "main");
RT_REGION(r_write, 2, 1, 1, 30, "write_region", "write_region");
RT_REGION(r_read, 3, 1, 1, 40, "read_region", "read_region");
RT_REGION(r_meta, 4, 1, 1, 50, "meta_region", "meta_region");

/* rchar, wchar of this process */
static void proc_io(long long *rchar, long long *wchar)
{
    char buf[1024];
    int fd = open("/proc/self/io", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    char *p;
    if (fd >= 0)
        close(fd);
    *rchar = *wchar = -1;
    if (n <= 0)
        return;
    buf[n] = 0;
    if ((p = strstr(buf, "rchar: ")))
        *rchar = atoll(p + 7);
    if ((p = strstr(buf, "wchar: ")))
        *wchar = atoll(p + 7);
}

static int vf(FILE *fp, const char *fmt, ...)
{
    va_list ap;
    int r;
    va_start(ap, fmt);
    r = vfprintf(fp, fmt, ap);
    va_end(ap);
    return r;
}

int main(int argc, char **argv)
{
    char path[4096], path2[4096], dir[4096], line[256];
    long long r0, w0, r1, w1, r2, w2, sum = 0;
    FILE *fp;
    int i, v;
    if (argc < 2)
        return 2;
    snprintf(path, sizeof path, "%s/stdio.txt", argv[1]);
    aa_runtime_enter(&r_main);

    proc_io(&r0, &w0);
    aa_runtime_enter(&r_write);
    fp = fopen(path, "w");
    if (!fp)
        return 1;
    for (i = 0; i < 20000; i++)
        fprintf(fp, "%d %s\n", i, "fprintf");
    for (i = 0; i < 10000; i++)
        vf(fp, "%d vfprintf\n", i);
    for (i = 0; i < 10000; i++)
        fputs("fputs line\n", fp);
    for (i = 0; i < 50000; i++) {
        fputc('a' + i % 26, fp);
        putc('\n', fp);
    }
    for (i = 0; i < 2000; i++) {
        char blk[100];
        memset(blk, 'w', sizeof blk);
        blk[99] = '\n';
        fwrite(blk, 1, sizeof blk, fp);
    }
    fflush(fp);
    fclose(fp);
    for (i = 0; i < 100; i++) {
        printf("printf %d\n", i);
        puts("puts");
        putchar('p');
        putchar('\n');
    }
    fflush(stdout);
    aa_runtime_exit(&r_write);
    proc_io(&r1, &w1);

    aa_runtime_enter(&r_read);
    fp = fopen(path, "r");
    if (!fp)
        return 1;
    for (i = 0; i < 20000; i++) /* the fprintf lines: "%d fprintf" */
        if (fscanf(fp, "%d %*s", &v) == 1)
            sum += v;
    fgetc(fp); /* the newline (not wrapped: counted by the next call's position) */
    for (i = 0; i < 10000; i++)
        if (fgets(line, sizeof line, fp))
            sum += line[0];
    {
        char big[65536];
        size_t n;
        while ((n = fread(big, 1, sizeof big, fp)) > 0)
            sum += big[0] + (long long)n;
    }
    fclose(fp);
    aa_runtime_exit(&r_read);
    proc_io(&r2, &w2);

    aa_runtime_enter(&r_meta);
    {
        struct stat st;
        int fd;
        snprintf(dir, sizeof dir, "%s/meta.d", argv[1]);
        snprintf(path, sizeof path, "%s/meta.d/f", argv[1]);
        snprintf(path2, sizeof path2, "%s/meta.d/g", argv[1]);
        mkdir(dir, 0755);
        fd = open(path, O_CREAT | O_WRONLY, 0644);
        fsync(fd);
        fdatasync(fd);
        if (ftruncate(fd, 4096) != 0)
            return 1;
        close(fd);
        stat(path, &st);
        rename(path, path2);
        lstat(path2, &st);
        unlink(path2);
        rmdir(dir);
    }
    aa_runtime_exit(&r_meta);
    aa_runtime_exit(&r_main);
    /* rchar: the first /proc/self/io read (of its own text) lands after its
     * snapshot; it is < 200 bytes, well under 1% of the data */
    fprintf(stderr, "truth wchar=%lld rchar=%lld sum=%lld\n", w1 - w0, r2 - r1, sum);
    return 0;
}
