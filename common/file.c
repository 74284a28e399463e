/*
 * common/file.c -- whole-file reads and atomic writes (temporary file in
 * the same directory, fsync, rename), so a crash or an error never leaves a
 * half-written output behind.
 */
#include "common/aa_common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int aa_atomic_open(aa_atomic_file *af, const char *path, aa_err *err)
{
    static unsigned counter;
    aa_buf b;
    int fd;
    af->fp = NULL;
    af->path = af->tmp = NULL;
    aa_buf_init(&b);
    aa_buf_printf(&b, "%s.tmp.%ld.%u", path, (long)getpid(),
                  __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
    if (b.failed)
        return aa_err_set(err, AA_EENV, "%s: out of memory", path);
    fd = open(b.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        aa_err_set(err, AA_EENV, "%s: cannot create: %s", b.data, strerror(errno));
        aa_buf_free(&b);
        return AA_EENV;
    }
    af->fp = fdopen(fd, "w");
    if (!af->fp) {
        close(fd);
        unlink(b.data);
        aa_buf_free(&b);
        return aa_err_set(err, AA_EENV, "%s: fdopen failed", path);
    }
    af->tmp = aa_buf_detach(&b);
    af->path = aa_strdup(path);
    if (!af->path) {
        aa_atomic_abort(af);
        return aa_err_set(err, AA_EENV, "%s: out of memory", path);
    }
    return AA_OK;
}

static void atomic_release(aa_atomic_file *af)
{
    free(af->path);
    free(af->tmp);
    af->path = af->tmp = NULL;
    af->fp = NULL;
}

int aa_atomic_commit(aa_atomic_file *af, aa_err *err)
{
    int bad = 0, saved = 0;
    if (!af->fp)
        return aa_err_set(err, AA_EUSAGE, "atomic file not open");
    if (fflush(af->fp) != 0 || ferror(af->fp))
        bad = 1, saved = errno;
    if (!bad && fsync(fileno(af->fp)) != 0 && errno != EINVAL)
        bad = 1, saved = errno;
    if (fclose(af->fp) != 0 && !bad)
        bad = 1, saved = errno;
    af->fp = NULL;
    if (!bad && rename(af->tmp, af->path) != 0)
        bad = 1, saved = errno;
    if (bad) {
        aa_err_set(err, AA_EENV, "%s: write failed: %s", af->path,
                   saved ? strerror(saved) : "I/O error");
        unlink(af->tmp);
        atomic_release(af);
        return AA_EENV;
    }
    atomic_release(af);
    return AA_OK;
}

void aa_atomic_abort(aa_atomic_file *af)
{
    if (af->fp)
        fclose(af->fp);
    if (af->tmp)
        unlink(af->tmp);
    atomic_release(af);
}

int aa_write_file_atomic(const char *path, const void *data, size_t n, aa_err *err)
{
    aa_atomic_file af;
    int rc = aa_atomic_open(&af, path, err);
    if (rc)
        return rc;
    if (n && fwrite(data, 1, n, af.fp) != n) {
        aa_atomic_abort(&af);
        return aa_err_set(err, AA_EENV, "%s: write failed", path);
    }
    return aa_atomic_commit(&af, err);
}

int aa_read_file(const char *path, char **data, size_t *len, aa_err *err)
{
    FILE *fp = fopen(path, "rb");
    aa_buf b;
    char chunk[65536];
    size_t n;
    if (!fp)
        return aa_err_set(err, AA_EENV, "%s: cannot open: %s", path, strerror(errno));
    aa_buf_init(&b);
    aa_buf_add(&b, "", 0);
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
        aa_buf_add(&b, chunk, n);
    if (ferror(fp) || b.failed) {
        fclose(fp);
        aa_buf_free(&b);
        return aa_err_set(err, AA_EENV, "%s: read failed", path);
    }
    fclose(fp);
    if (len)
        *len = b.len;
    *data = aa_buf_detach(&b);
    return AA_OK;
}
