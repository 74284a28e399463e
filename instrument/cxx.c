/*
 * instrument/cxx.c -- what the libclang pass needs to know about C++:
 * whether a file is C++ (its extension, `-x c++`, or a C++ compiler
 * driver such as g++ or mpicxx compiling it), the names regions get
 * in reports (`ns::Class::method`, `Vec<T>::norm`, `main/lambda@42`), the
 * identity hashed into a function's region ids (the name with its
 * parameter types, so overloads get distinct, stable ids), the words in a
 * declaration that forbid a probe (constexpr, consteval, coroutine
 * keywords, `= default`, `= delete`, an explicit `inline`), and the C++
 * form of the probe prelude (extern "C" probes and an RAII guard whose
 * destructor closes the region on every way out, exceptions included).
 */
#include "instrument/instr_private.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- language ------------------------------------------------------------- */

static int cxx_extension(const char *path)
{
    static const char *const ext[] = {".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C",
                                      ".ii", NULL};
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return 0;
    for (int i = 0; ext[i]; i++)
        if (!strcmp(dot, ext[i]))
            return 1;
    return 0;
}

/* A C++ compiler driver compiles every source as C++, `.c` included:
 * g++, c++, clang++ (with a target prefix or version suffix), mpicxx,
 * mpic++, mpiCC, Intel's icpc/icpx/mpiicpc. */
static int cxx_driver(const char *compiler)
{
    static const char *const names[] = {"mpicxx", "mpiCC", "mpiicpc", "mpiicpx", "icpc", "icpx",
                                        NULL};
    const char *b = compiler ? strrchr(compiler, '/') : NULL;
    b = b ? b + 1 : compiler;
    if (!b)
        return 0;
    for (int i = 0; names[i]; i++)
        if (!strcmp(b, names[i]))
            return 1;
    return strstr(b, "++") != NULL;
}

int instr_is_cxx(const char *path, const char *compiler, int argc, const char *const *argv)
{
    int lang = -1; /* the last -x before the end wins: flags come without the file */
    for (int i = 0; i < argc; i++) {
        const char *x = NULL;
        if (!strcmp(argv[i], "-x") && i + 1 < argc)
            x = argv[++i];
        else if (!strncmp(argv[i], "-x", 2) && argv[i][2])
            x = argv[i] + 2;
        if (x)
            lang = !strncmp(x, "c++", 3) ? 1 : !strcmp(x, "none") ? -1 : 0;
    }
    return lang >= 0 ? lang : cxx_extension(path) || cxx_driver(compiler);
}

/* ---- names ------------------------------------------------------------------ */

static void put_cx(aa_buf *b, CXString s)
{
    const char *c = clang_getCString(s);
    aa_buf_puts(b, c ? c : "");
    clang_disposeString(s);
}

/* The scope prefix of cursor c ("ns::Class<T>::"), outermost first. */
static void scope_prefix(aa_buf *b, CXCursor c)
{
    CXCursor p = clang_getCursorSemanticParent(c);
    enum CXCursorKind k = clang_getCursorKind(p);
    if (clang_Cursor_isNull(p) || k == CXCursor_TranslationUnit || clang_isInvalid(k))
        return;
    switch (k) {
    case CXCursor_Namespace:
    case CXCursor_ClassDecl:
    case CXCursor_StructDecl:
    case CXCursor_UnionDecl:
    case CXCursor_ClassTemplate:
    case CXCursor_ClassTemplatePartialSpecialization: {
        CXString s = k == CXCursor_Namespace ? clang_getCursorSpelling(p)
                                             : clang_getCursorDisplayName(p);
        const char *t = clang_getCString(s);
        scope_prefix(b, p);
        if (t && *t)
            aa_buf_puts(b, t);
        else
            aa_buf_puts(b, k == CXCursor_Namespace ? "(anonymous)" : "(unnamed)");
        clang_disposeString(s);
        aa_buf_puts(b, "::");
        break;
    }
    case CXCursor_LinkageSpec:
    case CXCursor_UnexposedDecl: /* extern "C" { } in some libclang versions */
        scope_prefix(b, p);
        break;
    default:
        break;
    }
}

/* The function's own name: constructors and destructors of a class
 * template without the template's parameters (`Stack`, not `Stack<T>`),
 * an explicit specialization with its arguments (`describe<std::string>`). */
static void own_name(aa_buf *b, CXCursor fn)
{
    enum CXCursorKind k = clang_getCursorKind(fn);
    CXString s;
    const char *t;
    size_t l;
    if (k == CXCursor_FunctionDecl && !clang_Cursor_isNull(clang_getSpecializedCursorTemplate(fn))) {
        s = clang_getCursorDisplayName(fn);
        t = clang_getCString(s);
        t = t ? t : "";
        l = strcspn(t, "(");
        if (l >= 2 && !strncmp(t + l - 2, "<>", 2)) { /* deduced: spell the arguments */
            int na = clang_Cursor_getNumTemplateArguments(fn);
            aa_buf_add(b, t, l - 1);
            for (int i = 0; i < na; i++) {
                if (i)
                    aa_buf_puts(b, ", ");
                if (clang_Cursor_getTemplateArgumentKind(fn, (unsigned)i) == CXTemplateArgumentKind_Type)
                    put_cx(b, clang_getTypeSpelling(clang_Cursor_getTemplateArgumentType(fn, (unsigned)i)));
                else
                    aa_buf_printf(b, "%lld", clang_Cursor_getTemplateArgumentValue(fn, (unsigned)i));
            }
            aa_buf_putc(b, '>');
            clang_disposeString(s);
            return;
        }
        if (memchr(t, '<', l)) {
            aa_buf_add(b, t, l);
            clang_disposeString(s);
            return;
        }
        clang_disposeString(s);
    }
    s = clang_getCursorSpelling(fn);
    t = clang_getCString(s);
    t = t ? t : "";
    l = strlen(t);
    if (k == CXCursor_Constructor || k == CXCursor_Destructor)
        l = strcspn(t, "<");
    aa_buf_add(b, t, l);
    clang_disposeString(s);
}

char *instr_cxx_name(CXCursor fn)
{
    aa_buf b;
    aa_buf_init(&b);
    scope_prefix(&b, fn);
    own_name(&b, fn);
    return aa_buf_detach(&b);
}

char *instr_cxx_ident(CXCursor fn)
{
    aa_buf b;
    aa_buf_init(&b);
    scope_prefix(&b, fn);
    put_cx(&b, clang_getCursorDisplayName(fn));
    return aa_buf_detach(&b);
}

/* ---- words of the declaration ------------------------------------------------ */

int instr_has_word(const char *text, const unsigned char *code, unsigned s, unsigned e,
                   const char *word)
{
    size_t l = strlen(word);
    for (unsigned i = s; i + l <= e; i++) {
        if (!code[i] || strncmp(text + i, word, l))
            continue;
        if (i > 0 && (isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_'))
            continue;
        if (i + l < e && (isalnum((unsigned char)text[i + l]) || text[i + l] == '_'))
            continue;
        return 1;
    }
    return 0;
}

const char *instr_cxx_never(const char *text, const unsigned char *code, unsigned s,
                            unsigned body_s, unsigned body_e)
{
    if (instr_has_word(text, code, s, body_s, "consteval"))
        return "consteval function (evaluated at compile time only)";
    if (instr_has_word(text, code, s, body_s, "constexpr"))
        return "constexpr function (a probe would make it unusable in constant expressions)";
    if (body_e > body_s && (instr_has_word(text, code, body_s, body_e, "co_await") ||
                            instr_has_word(text, code, body_s, body_e, "co_yield") ||
                            instr_has_word(text, code, body_s, body_e, "co_return")))
        return "coroutine (its body is rewritten by the compiler into a state machine)";
    return NULL;
}

/* ---- the prelude ------------------------------------------------------------------ */

static const char cxx_guard[] =
    "struct aa_runtime_guard {\n"
    "    aa_runtime_region *aa_r_;\n"
    "    explicit aa_runtime_guard(aa_runtime_region *r) : aa_r_(aa_runtime_enter_scope(r)) {}\n"
    "    ~aa_runtime_guard() { aa_runtime_scope_close(&aa_r_); }\n"
    "private:\n"
    "    aa_runtime_guard(const aa_runtime_guard &);\n"
    "    aa_runtime_guard &operator=(const aa_runtime_guard &);\n"
    "};\n"
    "#define AA_RUNTIME_GUARD(desc) "
    "::aa_runtime_guard AA_RUNTIME_CAT(aa_guard_, __LINE__)(&(desc))\n";

const char *instr_cxx_guard_decls(void)
{
    return cxx_guard;
}
