/*
 * instrument/instr_private.h -- private to instrument/: call classification
 * tables, the filter and plan structures shared by filter.c and
 * instrument.c.
 */
#ifndef AA_INSTR_PRIVATE_H
#define AA_INSTR_PRIVATE_H

#include "instrument/aa_instrument.h"

/* AA_MODE_MPI / _MATHLIB / _SYSCALLS / _LIBC, or 0 for an ordinary call. */
int instr_call_class(const char *name, int in_system_header);
/* libm, <ctype.h>, abs, __builtin_*: calls that compute and cannot block. */
int instr_call_pure(const char *name);
/* setjmp, longjmp, vfork, ...: regions containing them are left alone. */
int instr_call_unsafe(const char *name);
/* Short-function rule (docs/instrument.md, "Small regions"): memory and
 * string routines that never wait, routines that only report, routines
 * that do not return. */
int instr_call_memory(const char *name);
int instr_call_report(const char *name);
int instr_call_noreturn(const char *name);
int instr_call_tables_sorted(void); /* self-check for the unit test */

typedef struct instr_rule {
    char what;   /* 'F' function, 'P' file */
    int include; /* 1 include, 0 exclude */
    char *glob;
} instr_rule;

struct aa_instr_filter {
    instr_rule *rules;
    size_t n;
};

/* Where a plan entry was read: file (owned by the plan's `files`) and line. */
typedef struct instr_origin {
    const char *file;
    int line;
} instr_origin;

typedef struct instr_merge {
    char **names;
    size_t n;
    instr_origin at;
} instr_merge;

struct aa_instr_plan {
    char **elim;
    size_t nelim;
    instr_origin *elim_at; /* parallel to elim */
    char **pfilter;  /* functions the profile filter drops (--filter-from) */
    size_t npfilter;
    char **split;
    size_t nsplit;
    instr_origin *split_at; /* parallel to split */
    instr_merge *merge;
    size_t nmerge;
    char **files; /* the plan and refine files read */
    size_t nfiles;
};

/* 1 when `ref` (a decimal/hex id, a region name or a function name) names
 * the region. */
int instr_plan_names(const char *ref, uint32_t id, const char *name);

/* The real compiler's view (instrument/compiler.c): its predefined macros
 * for the user's flags (plus a few glibc compatibility lines), to be
 * force-included under -undef from an unsaved file at
 * instr_compiler_predef_path, and its system include directories. */
typedef struct instr_compiler_view {
    char *predef;
    size_t predef_len;
    char **dirs;
    size_t ndirs;
} instr_compiler_view;
extern const char instr_compiler_predef_path[];
/* 0 when `compiler` answered; -1 when it cannot be asked (then parse with
 * libclang's own view). */
int instr_compiler_view_get(const char *compiler, int cxx, int argc, const char *const *argv,
                            instr_compiler_view *v);
void instr_compiler_view_free(instr_compiler_view *v);

/* Fortran sources (instrument/fortran.c): 1 for a Fortran file name, and
 * the instrumenter behind aa_instrument_file for them. */
int instr_is_fortran(const char *path);
int instr_fortran_file(const char *path, int argc, const char *const *argv,
                       const aa_instrument_opts *o, aa_instrument_result *res, aa_err *err);

/* C++ (instrument/cxx.c). */
#include <clang-c/Index.h>
/* 1 when the file is C++: `-x c++...` in the flags, else its extension or
 * a C++ driver as the compiler (g++ compiles foo.c as C++). */
int instr_is_cxx(const char *path, const char *compiler, int argc, const char *const *argv);
/* Report name of a function: "ns::Class<T>::method" (malloc'd). */
char *instr_cxx_name(CXCursor fn);
/* Identity hashed into its region ids: the name with its parameter types. */
char *instr_cxx_ident(CXCursor fn);
/* 1 when `word` is a whole word in the code bytes of [s,e). */
int instr_has_word(const char *text, const unsigned char *code, unsigned s, unsigned e,
                   const char *word);
/* Why a function whose declaration starts at s and whose body is
 * [body_s,body_e) may never get a probe (constexpr, consteval, coroutine),
 * or NULL. */
const char *instr_cxx_never(const char *text, const unsigned char *code, unsigned s,
                            unsigned body_s, unsigned body_e);
/* The RAII guard of the C++ prelude (kept in sync with runtime/aa_probe.h). */
const char *instr_cxx_guard_decls(void);

#endif
