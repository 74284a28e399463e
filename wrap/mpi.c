/*
 * wrap/mpi.c -- is this an MPI program, and what does the MPI compiler add
 * to a compile?  MPI is recognised by the compiler's name, by MPI
 * libraries on the line (also inside -Wl lists and by path, as CMake's
 * find_package(MPI) writes them), and, failing both, by objects or static
 * libraries whose ELF symbol tables reference MPI routines (read here, no
 * external tool).  The MPI compiler's compile flags come from Open MPI's
 * --showme:compile or MPICH/Intel's -compile_info / -show.
 */
#include "wrap/wrap_internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *base_name(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

/* ---- names ------------------------------------------------------------------ */
int aa_wrap_is_mpi_compiler(const char *compiler)
{
    const char *b = base_name(compiler);
    static const char *const names[] = {"mpicc",   "mpicxx",  "mpic++",  "mpiCC",   "mpif77",
                                        "mpif90",  "mpifort", "mpifc",   "mpiicc",  "mpiicpc",
                                        "mpiifort", "mpiicx", "mpiicpx", "mpiifx", "mpigcc",
                                        "mpigxx",  "mpicc.openmpi", "mpicc.mpich", "mpiclang",
                                        NULL};
    if (!strncmp(b, "mpi", 3)) /* mpicc, mpiicc, mpifort, vendor names */
        return 1;
    for (int i = 0; names[i]; i++) {
        size_t l = strlen(names[i]);
        /* mpicc, mpicc-12, mpicc.openmpi, x86_64-linux-gnu-mpicc */
        const char *p = strstr(b, names[i]);
        if (p && (p == b || p[-1] == '-') && (!p[l] || p[l] == '-' || p[l] == '.'))
            return 1;
    }
    return 0;
}

static int mpi_lib_name(const char *name) /* "mpi", "mpi_mpifh", "mpich", "mpifort" */
{
    return !strcmp(name, "mpi") || !strncmp(name, "mpi_", 4) || !strncmp(name, "mpich", 5) ||
           !strcmp(name, "mpifort") || !strcmp(name, "mpicxx") || !strcmp(name, "mpl") ||
           !strcmp(name, "pmpi");
}

static int mpi_lib_file(const char *path)
{
    const char *b = base_name(path);
    char name[256];
    size_t l;
    if (strncmp(b, "lib", 3))
        return 0;
    b += 3;
    l = strcspn(b, ".");
    if (!l || l >= sizeof name || !b[l])
        return 0;
    memcpy(name, b, l);
    name[l] = '\0';
    b += l;
    if (!(strncmp(b, ".so", 3) == 0 && (!b[3] || b[3] == '.')) && strcmp(b, ".a"))
        return 0;
    return mpi_lib_name(name);
}

int aa_wrap_arg_is_mpi_lib(const char *a)
{
    if (!strncmp(a, "-Wl,", 4)) {
        char *copy = aa_strdup(a + 4), *save = NULL;
        int hit = 0;
        if (!copy)
            return 0;
        for (char *t = strtok_r(copy, ",", &save); t && !hit; t = strtok_r(NULL, ",", &save))
            hit = aa_wrap_arg_is_mpi_lib(t);
        free(copy);
        return hit;
    }
    if (!strncmp(a, "-l:", 3))
        return mpi_lib_file(a + 3);
    if (!strncmp(a, "-l", 2))
        return mpi_lib_name(a + 2);
    if (a[0] == '-')
        return 0;
    return mpi_lib_file(a);
}

/* ---- ELF symbol tables --------------------------------------------------------- */
static int mpi_symbol(const char *s)
{
    return !strncmp(s, "MPI_", 4) || !strncmp(s, "PMPI_", 5) || !strncmp(s, "mpi_init", 8) ||
           !strncmp(s, "mpi_finalize", 12);
}

/* One ELF64 relocatable object in memory: an undefined MPI symbol?  The
 * structures are copied out (memcpy): archive members start at any even
 * offset, so the bytes need not be aligned for Elf64_* types. */
static int elf_refs_mpi(const unsigned char *p, size_t n, char *sym, size_t symlen)
{
    Elf64_Ehdr eh;
    if (n < sizeof eh)
        return 0;
    memcpy(&eh, p, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return 0;
    if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > n ||
        (size_t)eh.e_shnum * sizeof(Elf64_Shdr) > n - eh.e_shoff)
        return 0;
    for (int i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh, st;
        memcpy(&sh, p + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_SYMTAB || sh.sh_link >= eh.e_shnum)
            continue;
        memcpy(&st, p + eh.e_shoff + (size_t)sh.sh_link * sizeof st, sizeof st);
        if (sh.sh_offset > n || sh.sh_size > n - sh.sh_offset || st.sh_offset > n ||
            st.sh_size > n - st.sh_offset || sh.sh_entsize != sizeof(Elf64_Sym))
            continue;
        const char *str = (const char *)(p + st.sh_offset);
        size_t ns = sh.sh_size / sizeof(Elf64_Sym);
        for (size_t k = 1; k < ns; k++) {
            Elf64_Sym sy;
            memcpy(&sy, p + sh.sh_offset + k * sizeof sy, sizeof sy);
            if (sy.st_shndx != SHN_UNDEF || sy.st_name >= st.sh_size)
                continue;
            const char *name = str + sy.st_name;
            if (!memchr(name, '\0', st.sh_size - sy.st_name))
                continue;
            if (mpi_symbol(name)) {
                if (sym && symlen)
                    snprintf(sym, symlen, "%s", name);
                return 1;
            }
        }
    }
    return 0;
}

/* A System V / GNU ar archive: any member referencing MPI? */
static int ar_refs_mpi(const unsigned char *p, size_t n, char *sym, size_t symlen)
{
    size_t off = 8;
    if (n < 8 || memcmp(p, "!<arch>\n", 8))
        return 0; /* thin archives ("!<thin>\n") have no members inside */
    while (off + 60 <= n) {
        char sz[11];
        long size;
        memcpy(sz, p + off + 48, 10);
        sz[10] = '\0';
        size = strtol(sz, NULL, 10);
        if (size < 0 || (size_t)size > n - off - 60)
            return 0;
        if (p[off] != '/' && elf_refs_mpi(p + off + 60, (size_t)size, sym, symlen))
            return 1;
        off += 60 + (size_t)size + ((size_t)size & 1);
    }
    return 0;
}

int aa_wrap_file_references_mpi(const char *path, char *sym, size_t symlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), hit = 0;
    struct stat st;
    void *m;
    if (fd < 0)
        return 0;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 64) {
        close(fd);
        return 0;
    }
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return 0;
    hit = ar_refs_mpi(m, (size_t)st.st_size, sym, symlen) ||
          elf_refs_mpi(m, (size_t)st.st_size, sym, symlen);
    munmap(m, (size_t)st.st_size);
    return hit;
}

int aa_wrap_link_is_mpi(const aa_wrap_cmd *cmd, char *why, size_t whylen)
{
    char sym[128];
    if (aa_wrap_is_mpi_compiler(cmd->compiler)) {
        snprintf(why, whylen, "MPI compiler %s", base_name(cmd->compiler));
        return 1;
    }
    if (cmd->mpi_lib_index >= 0) {
        snprintf(why, whylen, "MPI library %s", cmd->argv[cmd->mpi_lib_index].text);
        return 1;
    }
    for (int i = 0; i < cmd->argc; i++) {
        const aa_wrap_arg *a = &cmd->argv[i];
        if ((a->kind == AA_WARG_OBJECT || a->kind == AA_WARG_ARCHIVE) &&
            aa_wrap_file_references_mpi(a->text, sym, sizeof sym)) {
            snprintf(why, whylen, "%s references %s", a->text, sym);
            return 1;
        }
    }
    snprintf(why, whylen, "no MPI");
    return 0;
}

/* ---- the MPI compiler's compile flags ------------------------------------------- */
/* Runs compiler with one query argument; its stdout, or NULL. */
static char *query(const char *compiler, const char *arg)
{
    int fd[2], st;
    pid_t pid;
    aa_buf b;
    char chunk[4096];
    ssize_t r;
    if (pipe(fd))
        return NULL;
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return NULL;
    }
    if (pid == 0) {
        int dn = open("/dev/null", O_RDWR);
        dup2(fd[1], 1);
        if (dn >= 0) {
            dup2(dn, 0);
            dup2(dn, 2);
        }
        close(fd[0]);
        close(fd[1]);
        /* the query must not come back into the wrapper */
        setenv("AUTOANALYZER_WRAPPER_ACTIVE", "1", 1);
        execlp(compiler, compiler, arg, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    aa_buf_init(&b);
    while ((r = read(fd[0], chunk, sizeof chunk)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        aa_buf_add(&b, chunk, (size_t)r);
    }
    close(fd[0]);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || b.failed || !b.len) {
        aa_buf_free(&b);
        return NULL;
    }
    return aa_buf_detach(&b);
}

/* Keeps the tokens that matter to parsing: -I -D -U -isystem -include
 * -idirafter -iquote -pthread -std (with separate values). */
static int keep_parse_flags(const char *text, wrap_argv *out)
{
    wrap_argv tok = {0};
    char *copy = aa_strdup(text), *save = NULL;
    int rc = 0;
    if (!copy)
        return -1;
    for (char *t = strtok_r(copy, " \t\r\n", &save); t && !rc; t = strtok_r(NULL, " \t\r\n", &save))
        rc = wrap_argv_push(&tok, t);
    free(copy);
    for (int i = 0; !rc && i < tok.n; i++) {
        const char *t = tok.v[i];
        int sep = !strcmp(t, "-I") || !strcmp(t, "-D") || !strcmp(t, "-U") ||
                  !strcmp(t, "-isystem") || !strcmp(t, "-include") || !strcmp(t, "-idirafter") ||
                  !strcmp(t, "-iquote");
        if (sep && i + 1 < tok.n) {
            rc = wrap_argv_push(out, t) || wrap_argv_push(out, tok.v[i + 1]);
            i++;
        } else if (!strncmp(t, "-I", 2) || !strncmp(t, "-D", 2) || !strncmp(t, "-U", 2) ||
                   !strncmp(t, "-isystem", 8) || !strcmp(t, "-pthread") ||
                   !strncmp(t, "-std=", 5)) {
            rc = wrap_argv_push(out, t);
        }
    }
    wrap_argv_free(&tok);
    return rc;
}

int aa_wrap_mpi_compile_flags(const char *compiler, int *argc, char ***argv, aa_err *err)
{
    static const char *const queries[] = {"--showme:compile", "-compile_info", "-show", NULL};
    wrap_argv out = {0};
    *argc = 0;
    *argv = NULL;
    for (int q = 0; queries[q]; q++) {
        char *text = query(compiler, queries[q]);
        if (!text)
            continue;
        if (keep_parse_flags(text, &out)) {
            free(text);
            wrap_argv_free(&out);
            return aa_err_set(err, AA_EENV, "out of memory");
        }
        free(text);
        break;
    }
    if (!out.v && !(out.v = calloc(1, sizeof *out.v)))
        return aa_err_set(err, AA_EENV, "out of memory");
    *argc = out.n;
    *argv = out.v;
    return AA_OK;
}
