/*
 * tests/unit/test_wrap.c -- wrap/: response files (gcc quoting, escapes,
 * nesting, self-inclusion, unreadable files, write-and-read-back), the
 * argument model (joined and separate values, -x, modes, inputs by kind),
 * MPI detection by compiler name, library argument and ELF symbols, and
 * configure-check recognition.
 */
#include "tests/tap.h"
#include "wrap/aa_wrap.h"

#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/aa-test-wrap.XXXXXX";

static char *path(const char *name)
{
    static char b[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(b[k], sizeof b[k], "%s/%s", dir, name);
    return b[k];
}

static void put(const char *name, const char *text)
{
    FILE *f = fopen(path(name), "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_response_files(void)
{
    char at[300], at2[300];
    char *in[3];
    int n = 0, used = 0;
    char **v = NULL;
    aa_err err;
    aa_buf b;

    put("a.rsp", "-O2 'two words' \"dq \\\"x\\\"\" back\\ slash\n -DX=\\'1\\'");
    snprintf(at, sizeof at, "@%s", path("a.rsp"));
    in[0] = "first";
    in[1] = at;
    in[2] = "last";
    ok(aa_wrap_expand_response_files(3, in, &n, &v, &used, &err) == AA_OK, "expand");
    is_int(n, 7, "7 arguments");
    if (n == 7) {
        is_str(v[1], "-O2", "plain word");
        is_str(v[2], "two words", "single quotes group");
        is_str(v[3], "dq \"x\"", "double quotes, escaped quotes inside");
        is_str(v[4], "back slash", "backslash escapes a space");
        is_str(v[5], "-DX='1'", "escaped single quotes");
        is_str(v[6], "last", "order kept");
    }
    ok(used == 1, "a file was used");
    aa_wrap_free_argv(n, v);

    /* nesting, a file naming itself, an unreadable file */
    snprintf(at2, sizeof at2, "@%s", path("b.rsp"));
    put("c.rsp", "inner");
    {
        char t[600];
        snprintf(t, sizeof t, "outer @%s %s", path("c.rsp"), at2);
        put("b.rsp", t);
    }
    in[0] = at2;
    in[1] = "@/nonexistent/file.rsp";
    ok(aa_wrap_expand_response_files(2, in, &n, &v, &used, &err) == AA_OK,
       "a self-including file terminates");
    ok(n > 2 && !strcmp(v[0], "outer") && !strcmp(v[1], "inner"), "nested file expanded in place");
    is_str(v[n - 1], "@/nonexistent/file.rsp", "unreadable file stays literal");
    aa_wrap_free_argv(n, v);

    /* write and read back */
    {
        char *w[] = {"a b", "q'\"", "back\\slash", "", "tab\there", NULL};
        aa_buf_init(&b);
        aa_wrap_quote_response(&b, 5, w);
        put("d.rsp", b.data);
        aa_buf_free(&b);
        snprintf(at, sizeof at, "@%s", path("d.rsp"));
        in[0] = at;
        ok(aa_wrap_expand_response_files(1, in, &n, &v, &used, &err) == AA_OK, "read back");
        is_int(n, 5, "5 arguments back");
        for (int i = 0; i < 5 && i < n; i++)
            is_str(v[i], w[i], "argument round trip");
        aa_wrap_free_argv(n, v);
    }
}

static void test_model(void)
{
    aa_wrap_cmd c;
    aa_err err;
    char *a1[] = {"mpicc", "-c", "-Iinc", "-I", "dir", "-DX=1", "-o", "out.o", "x.c", "-MD",
                  "-MF", "dep.d", NULL};
    char *a2[] = {"gcc", "main.o", "libs.a", "-lm", "-o", "app", "-x", "c", "gen.inc",
                  "-x", "none", "k.cpp", "/opt/lib/libmpi.so.40", "f.f90", NULL};
    char *a3[] = {"cc", "-E", "x.c", NULL};
    char *a4[] = {"cc", "-v", NULL};
    char *a5[] = {"cc", "-ofoo", "-lmpi_mpifh", "a.o", NULL};

    ok(aa_wrap_parse(12, a1, &c, &err) == AA_OK, "parse a compile");
    is_int(c.mode, AA_WRAP_COMPILE, "-c is a compile");
    is_int(c.nc, 1, "one C source");
    is_str(c.output, "out.o", "-o value");
    is_str(c.depfile, "dep.d", "-MF value");
    ok(c.md, "-MD seen");
    is_int(c.argv[3].kind, AA_WARG_VALUE, "-I dir: dir is a value");
    is_int(c.argv[7].kind, AA_WARG_SOURCE, "x.c is a source");
    aa_wrap_cmd_free(&c);

    ok(aa_wrap_parse(14, a2, &c, &err) == AA_OK, "parse a link");
    is_int(c.mode, AA_WRAP_LINK, "no -c: link");
    is_int(c.argv[0].kind, AA_WARG_OBJECT, "main.o object");
    is_int(c.argv[1].kind, AA_WARG_ARCHIVE, "libs.a archive");
    is_int(c.argv[2].kind, AA_WARG_LIBFLAG, "-lm");
    ok(c.argv[7].kind == AA_WARG_SOURCE && c.argv[7].lang == AA_LANG_C, "-x c gen.inc is C");
    ok(c.argv[10].kind == AA_WARG_SOURCE && c.argv[10].lang == AA_LANG_CXX, "-x none: k.cpp is C++");
    is_int(c.argv[11].kind, AA_WARG_SHLIB, "libmpi.so.40 shared library");
    ok(c.argv[12].lang == AA_LANG_FORTRAN, "f.f90 Fortran");
    is_int(c.mpi_lib_index, 11, "MPI library found by path");
    is_int(c.nc, 3, "one C, one C++ and one Fortran source to instrument");
    aa_wrap_cmd_free(&c);

    ok(aa_wrap_parse(3, a3, &c, &err) == AA_OK && c.mode == AA_WRAP_PREPROCESS, "-E preprocess");
    aa_wrap_cmd_free(&c);
    ok(aa_wrap_parse(2, a4, &c, &err) == AA_OK && c.mode == AA_WRAP_QUERY, "-v alone is a query");
    aa_wrap_cmd_free(&c);
    ok(aa_wrap_parse(4, a5, &c, &err) == AA_OK, "parse joined");
    is_str(c.output, "foo", "-ofoo");
    is_int(c.mpi_lib_index, 1, "-lmpi_mpifh is MPI");
    aa_wrap_cmd_free(&c);
}

static void test_mpi(void)
{
    ok(aa_wrap_is_mpi_compiler("/usr/bin/mpicc"), "mpicc");
    ok(aa_wrap_is_mpi_compiler("mpiifort"), "mpiifort");
    ok(aa_wrap_is_mpi_compiler("x86_64-linux-gnu-mpicxx"), "triplet-mpicxx");
    ok(!aa_wrap_is_mpi_compiler("gcc"), "gcc is not");
    ok(!aa_wrap_is_mpi_compiler("/opt/mpi/bin/cc"), "cc in an mpi folder is not");
    ok(aa_wrap_arg_is_mpi_lib("-lmpi"), "-lmpi");
    ok(aa_wrap_arg_is_mpi_lib("-lmpich"), "-lmpich");
    ok(aa_wrap_arg_is_mpi_lib("-lmpifort"), "-lmpifort");
    ok(aa_wrap_arg_is_mpi_lib("-l:libmpi.so.40"), "-l:libmpi.so.40");
    ok(aa_wrap_arg_is_mpi_lib("/usr/lib/openmpi/lib/libmpi.so"), "libmpi.so path");
    ok(aa_wrap_arg_is_mpi_lib("/x/libmpi.a"), "libmpi.a path");
    ok(aa_wrap_arg_is_mpi_lib("-Wl,--as-needed,-lmpi"), "inside -Wl,");
    ok(!aa_wrap_arg_is_mpi_lib("-lmpfr"), "-lmpfr is not");
    ok(!aa_wrap_arg_is_mpi_lib("-lm"), "-lm is not");
    ok(!aa_wrap_arg_is_mpi_lib("libmpix.c"), "a source is not");
    ok(!aa_wrap_arg_is_mpi_lib("-L/usr/lib/openmpi/lib"), "-L is not");
    /* ELF symbols: an object built here with an undefined MPI_Init */
    put("u.c", "extern int MPI_Init(int *, char ***);\nint f(void) { return MPI_Init(0, 0); }\n");
    put("d.c", "int g(void) { return 1; }\n");
    {
        char cmd[1024], sym[64] = "";
        snprintf(cmd, sizeof cmd,
                 "cd %s && cc -c u.c -o u.o && cc -c d.c -o d.o && ar rcs libu.a d.o u.o && "
                 "ar rcs libd.a d.o", dir);
        if (system(cmd) == 0) {
            ok(aa_wrap_file_references_mpi(path("u.o"), sym, sizeof sym), "object references MPI");
            is_str(sym, "MPI_Init", "names the symbol");
            ok(aa_wrap_file_references_mpi(path("libu.a"), NULL, 0), "archive member references MPI");
            ok(!aa_wrap_file_references_mpi(path("libd.a"), NULL, 0), "archive without MPI");
            ok(!aa_wrap_file_references_mpi(path("d.o"), NULL, 0), "object without MPI");
            ok(!aa_wrap_file_references_mpi(path("u.c"), NULL, 0), "not ELF");
        } else {
            ok(0, "cc builds the test objects");
        }
    }
}

static void test_configure(void)
{
    aa_wrap_cmd c;
    aa_err err;
    const char *why;
    char *a1[] = {"cc", "-o", "conftest", "-g", "conftest.c", "-lm", NULL};
    char *a2[] = {"cc", "CMakeFiles/cmTC_ab12.dir/src.c.o", "-o", "cmTC_ab12", NULL};
    char *a3[] = {"cc", "-c", "main.c", "-o", "main.o", NULL};
    ok(aa_wrap_parse(6, a1, &c, &err) == AA_OK && aa_wrap_is_configure_check(&c, "/src", &why),
       "autoconf conftest");
    aa_wrap_cmd_free(&c);
    ok(aa_wrap_parse(4, a2, &c, &err) == AA_OK && aa_wrap_is_configure_check(&c, "/b", &why),
       "CMake try_compile link");
    aa_wrap_cmd_free(&c);
    ok(aa_wrap_parse(5, a3, &c, &err) == AA_OK &&
           aa_wrap_is_configure_check(&c, "/b/CMakeFiles/CMakeScratch/TryCompile-x", &why),
       "anything in CMakeScratch");
    ok(!aa_wrap_is_configure_check(&c, "/home/u/project", &why), "an ordinary compile is not");
    aa_wrap_cmd_free(&c);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    test_response_files();
    test_model();
    test_mpi();
    test_configure();
    {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0)
            ok(0, "cleanup");
    }
    return tap_done();
}
