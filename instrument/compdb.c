/*
 * instrument/compdb.c -- the user's real compile flags for a source file
 * from compile_commands.json (clang_CompilationDatabase_*), with relative
 * include paths made absolute against the entry's directory.
 */
#include "instrument/instr_private.h"

#include <clang-c/CXCompilationDatabase.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void aa_instrument_free_args(int argc, char **argv)
{
    if (!argv)
        return;
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
}

static char *abs_in(const char *dir, const char *p)
{
    aa_buf b;
    if (p[0] == '/' || !dir || !*dir)
        return aa_strdup(p);
    aa_buf_init(&b);
    aa_buf_printf(&b, "%s/%s", dir, p);
    return aa_buf_detach(&b);
}

static int from_db(CXCompilationDatabase db, const char *file, int *argc, char ***argv)
{
    CXCompileCommands cmds = clang_CompilationDatabase_getCompileCommands(db, file);
    unsigned n = cmds ? clang_CompileCommands_getSize(cmds) : 0;
    int rc = -1;
    if (n > 0) {
        CXCompileCommand cmd = clang_CompileCommands_getCommand(cmds, 0);
        unsigned na = clang_CompileCommand_getNumArgs(cmd);
        CXString ds = clang_CompileCommand_getDirectory(cmd);
        char *dir = aa_strdup(clang_getCString(ds));
        char **v = calloc(na + 1, sizeof *v);
        int k = 0;
        clang_disposeString(ds);
        for (unsigned i = 1; v && i < na; i++) {
            CXString as = clang_CompileCommand_getArg(cmd, i);
            const char *a = clang_getCString(as);
            static const char *const pfx[] = {"-I", "-isystem", "-iquote", "-idirafter", NULL};
            int done = 0;
            for (int p = 0; pfx[p] && !done; p++) {
                size_t l = strlen(pfx[p]);
                if (!strncmp(a, pfx[p], l) && a[l]) {
                    char *x = abs_in(dir, a + l);
                    aa_buf b;
                    aa_buf_init(&b);
                    aa_buf_printf(&b, "%s%s", pfx[p], x ? x : "");
                    free(x);
                    v[k++] = aa_buf_detach(&b);
                    done = 1;
                } else if (!strcmp(a, pfx[p]) && i + 1 < na) {
                    CXString bs;
                    v[k++] = aa_strdup(a);
                    bs = clang_CompileCommand_getArg(cmd, ++i);
                    v[k++] = abs_in(dir, clang_getCString(bs));
                    clang_disposeString(bs);
                    done = 1;
                }
            }
            if (!done)
                v[k++] = aa_strdup(a);
            clang_disposeString(as);
        }
        free(dir);
        if (v) {
            *argc = k;
            *argv = v;
            rc = 0;
        }
    }
    if (cmds)
        clang_CompileCommands_dispose(cmds);
    return rc;
}

int aa_instrument_compdb_flags(const char *path, const char *dir, int *argc, char ***argv,
                               aa_err *err)
{
    char abs[PATH_MAX], d[PATH_MAX];
    *argc = 0;
    *argv = NULL;
    if (!realpath(path, abs))
        return aa_err_set(err, AA_EINPUT, "%s: no such file", path);
    if (dir)
        snprintf(d, sizeof d, "%s", dir);
    else {
        snprintf(d, sizeof d, "%s", abs);
        *strrchr(d, '/') = '\0';
    }
    for (;;) {
        CXCompilationDatabase_Error e;
        CXCompilationDatabase db;
        char probe[PATH_MAX + 32];
        snprintf(probe, sizeof probe, "%s/compile_commands.json", d);
        if (access(probe, R_OK) == 0) {
            db = clang_CompilationDatabase_fromDirectory(d, &e);
            if (e == CXCompilationDatabase_NoError && db) {
                int rc = from_db(db, abs, argc, argv);
                clang_CompilationDatabase_dispose(db);
                if (rc == 0)
                    return 0;
            }
        }
        if (dir || !strrchr(d, '/') || d[1] == '\0')
            break;
        *strrchr(d, '/') = '\0';
        if (!d[0]) {
            d[0] = '/';
            d[1] = '\0';
        }
    }
    return aa_err_set(err, AA_EENV, "%s: no entry in any compile_commands.json", path);
}
