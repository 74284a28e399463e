/*
 * wrap/link.c -- the runtime's place on a link line.  MPI programs get
 * libautoanalyzer-mpi (the PMPI wrappers) and libautoanalyzer, others the
 * latter only; the libraries are named by path and bracketed by
 * -Wl,--push-state,--no-as-needed ... -Wl,--pop-state so that the linker
 * records them as needed even when nothing in the program's own objects
 * calls them (MPI reached only through a static or shared library, Debian's
 * or the user's --as-needed), with an rpath to their directory.  With
 * -static the archives go inside --whole-archive.  The caller puts these
 * arguments before the MPI library: the dynamic linker then finds the
 * wrappers' MPI_Init before libmpi's.
 */
#include "wrap/wrap_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *lib_path(const char *libdir, const char *name, const char *suffix)
{
    aa_buf b;
    aa_buf_init(&b);
    aa_buf_printf(&b, "%s/lib%s%s", libdir, name, suffix);
    return aa_buf_detach(&b);
}

static int push_owned(wrap_argv *v, char *s)
{
    int rc = s ? wrap_argv_push(v, s) : -1;
    free(s);
    return rc;
}

int aa_wrap_runtime_link_args(const aa_wrap_cmd *cmd, int mpi, const char *libdir, int *n,
                              char ***v, aa_err *err)
{
    const char *suffix = cmd->is_static ? ".a" : ".so";
    const char *names[2] = {"autoanalyzer-mpi", "autoanalyzer"};
    char *paths[2] = {NULL, NULL};
    wrap_argv out = {0};
    int first = mpi ? 0 : 1, rc = AA_OK;
    aa_buf rpath;

    *n = 0;
    *v = NULL;
    /* the libraries must be there */
    for (int i = first; i < 2; i++) {
        paths[i] = lib_path(libdir, names[i], suffix);
        if (!paths[i]) {
            rc = aa_err_set(err, AA_EENV, "out of memory");
            goto done;
        }
        if (access(paths[i], R_OK)) {
            rc = aa_err_set(err, AA_EENV, "%s: runtime library not found (set AUTOANALYZER_LIBDIR)",
                            paths[i]);
            goto done;
        }
    }
    /* kept whatever --as-needed says; whole archives when static */
    if (cmd->is_static) {
        rc = wrap_argv_push(&out, "-Wl,--whole-archive");
        for (int i = first; !rc && i < 2; i++)
            rc = wrap_argv_push(&out, paths[i]);
        rc = rc || wrap_argv_push(&out, "-Wl,--no-whole-archive") ||
             wrap_argv_push(&out, "-lm") || wrap_argv_push(&out, "-lpthread") ||
             wrap_argv_push(&out, "-ldl");
    } else {
        aa_buf_init(&rpath);
        aa_buf_printf(&rpath, "-Wl,-rpath,%s", libdir);
        rc = wrap_argv_push(&out, "-Wl,--push-state,--no-as-needed");
        for (int i = first; !rc && i < 2; i++)
            rc = wrap_argv_push(&out, paths[i]);
        rc = rc || wrap_argv_push(&out, "-Wl,--pop-state") ||
             push_owned(&out, aa_buf_detach(&rpath));
    }
    if (rc) {
        wrap_argv_free(&out);
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto done;
    }
    *n = out.n;
    *v = out.v;
done:
    free(paths[0]);
    free(paths[1]);
    return rc;
}
