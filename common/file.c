/*
 * common/file.c -- whole-file reads and the one way outputs are written:
 * a regular file through a temporary in the same directory, fsync and
 * rename, so a crash or an error never leaves a half-written output behind;
 * devices, FIFOs and "-" (stdout) in place; symbolic links followed.
 */
#include "common/aa_common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- where an output goes --------------------------------------------
 * Symbolic links are followed to the file they name (a dangling link to a
 * new file still creates that file); what the name finally denotes decides
 * the way of writing: a regular or new file is replaced through a temporary
 * next to it, anything else (a device, a FIFO, a socket) is opened and
 * written in place, "-" is stdout. */
enum { OUT_ATOMIC = 0, OUT_IN_PLACE = 1, OUT_STDOUT = 2 };

/* The joined "dir-of(link)/target" when target is relative. */
static char *link_target(const char *link, const char *target)
{
    const char *slash = strrchr(link, '/');
    aa_buf b;
    if (target[0] == '/' || !slash)
        return aa_strdup(target);
    aa_buf_init(&b);
    aa_buf_add(&b, link, (size_t)(slash - link + 1));
    aa_buf_puts(&b, target);
    if (b.failed) {
        aa_buf_free(&b);
        return NULL;
    }
    return aa_buf_detach(&b);
}

/* Resolves path through symbolic links into *final (allocated) and says
 * how to write it (OUT_*), or fails with AA_EENV. */
static int output_resolve(const char *path, char **final, int *how, mode_t *mode, aa_err *err)
{
    char *cur = aa_strdup(path);
    struct stat st;
    int hops;
    *mode = 0;
    if (!cur)
        return aa_err_set(err, AA_EENV, "%s: out of memory", path);
    for (hops = 0;; hops++) {
        char target[4096];
        ssize_t n;
        char *next;
        if (lstat(cur, &st) != 0) {
            if (errno != ENOENT) {
                aa_err_set(err, AA_EENV, "%s: %s", path, strerror(errno));
                free(cur);
                return AA_EENV;
            }
            *how = OUT_ATOMIC; /* a new file */
            break;
        }
        if (!S_ISLNK(st.st_mode)) {
            *how = S_ISREG(st.st_mode) ? OUT_ATOMIC : OUT_IN_PLACE;
            *mode = st.st_mode & 07777;
            break;
        }
        if (hops == 40) {
            free(cur);
            return aa_err_set(err, AA_EENV, "%s: too many levels of symbolic links", path);
        }
        n = readlink(cur, target, sizeof target - 1);
        if (n < 0) {
            aa_err_set(err, AA_EENV, "%s: %s", path, strerror(errno));
            free(cur);
            return AA_EENV;
        }
        target[n] = '\0';
        next = link_target(cur, target);
        free(cur);
        if (!next)
            return aa_err_set(err, AA_EENV, "%s: out of memory", path);
        cur = next;
    }
    *final = cur;
    return AA_OK;
}

static int open_in_place(aa_atomic_file *af, const char *path, aa_err *err)
{
    int fd = open(af->path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return aa_err_set(err, AA_EENV, "%s: cannot open: %s", path, strerror(errno));
    af->fp = fdopen(fd, "w");
    if (!af->fp) {
        close(fd);
        return aa_err_set(err, AA_EENV, "%s: fdopen failed", path);
    }
    return AA_OK;
}

static int open_temporary(aa_atomic_file *af, const char *path, mode_t mode, aa_err *err)
{
    static unsigned counter;
    aa_buf b;
    int fd;
    aa_buf_init(&b);
    aa_buf_printf(&b, "%s.tmp.%ld.%u", af->path, (long)getpid(),
                  __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
    if (b.failed)
        return aa_err_set(err, AA_EENV, "%s: out of memory", path);
    fd = open(b.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        aa_err_set(err, AA_EENV, "%s: cannot create: %s", b.data, strerror(errno));
        aa_buf_free(&b);
        return AA_EENV;
    }
    if (mode)
        (void)fchmod(fd, mode); /* a replaced file keeps its permissions */
    af->fp = fdopen(fd, "w");
    if (!af->fp) {
        close(fd);
        unlink(b.data);
        aa_buf_free(&b);
        return aa_err_set(err, AA_EENV, "%s: fdopen failed", path);
    }
    af->tmp = aa_buf_detach(&b);
    return AA_OK;
}

int aa_atomic_open(aa_atomic_file *af, const char *path, aa_err *err)
{
    mode_t mode;
    int how, rc;
    af->fp = NULL;
    af->path = af->tmp = NULL;
    if (strcmp(path, "-") == 0) {
        af->fp = stdout;
        return AA_OK;
    }
    if ((rc = output_resolve(path, &af->path, &how, &mode, err)))
        return rc;
    rc = how == OUT_IN_PLACE ? open_in_place(af, path, err) : open_temporary(af, path, mode, err);
    if (rc) {
        free(af->path);
        af->path = NULL;
    }
    return rc;
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
    const char *name = af->path ? af->path : "stdout";
    if (!af->fp)
        return aa_err_set(err, AA_EUSAGE, "atomic file not open");
    if (fflush(af->fp) != 0 || ferror(af->fp))
        bad = 1, saved = errno;
    if (!af->path) { /* stdout stays open */
        af->fp = NULL;
        return bad ? aa_err_set(err, AA_EENV, "stdout: write failed: %s",
                                saved ? strerror(saved) : "I/O error")
                   : AA_OK;
    }
    if (!bad && af->tmp && fsync(fileno(af->fp)) != 0 && errno != EINVAL)
        bad = 1, saved = errno;
    if (fclose(af->fp) != 0 && !bad)
        bad = 1, saved = errno;
    af->fp = NULL;
    if (!bad && af->tmp && rename(af->tmp, af->path) != 0)
        bad = 1, saved = errno;
    if (bad) {
        aa_err_set(err, AA_EENV, "%s: write failed: %s", name,
                   saved ? strerror(saved) : "I/O error");
        if (af->tmp)
            unlink(af->tmp);
        atomic_release(af);
        return AA_EENV;
    }
    atomic_release(af);
    return AA_OK;
}

void aa_atomic_abort(aa_atomic_file *af)
{
    if (af->fp && af->path)
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
        int saved = errno;
        aa_atomic_abort(&af);
        return aa_err_set(err, AA_EENV, "%s: write failed: %s", path, strerror(saved));
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
