/*
 * runtime/aa_user.h -- user-region macros of the AutoAnalyzer runtime that
 * compile out when measurement is off, like SCOREP_USER_REGION_BEGIN/END
 * and CALI_MARK_BEGIN/END.  Installed as <autoanalyzer/aa_user.h> (and
 * included by <autoanalyzer/aa_runtime.h>).
 *
 *   AA_REGION_BEGIN("assemble"); ... AA_REGION_END("assemble");
 *   { AA_REGION_SCOPE("solve"); ... }   closed on every path out of the block
 *                                       (cleanup attribute in C, RAII in C++)
 *   AA_PAUSE(); ... AA_RESUME();        stop / restart recording
 *
 * The macros are active only when AUTOANALYZER is defined (the compiler
 * wrapper, autoanalyzer.pc / autoanalyzer-mpi.pc and the CMake targets
 * AutoAnalyzer::runtime / AutoAnalyzer::mpi define AUTOANALYZER=1).
 * Otherwise every macro expands to ((void)0) (AA_REGION_SCOPE to nothing)
 * and the header declares nothing, so a program builds and links without
 * AutoAnalyzer and references none of its symbols.  Names are strings; a
 * region is identified by its name (kind "user" in the profile).  A program
 * that must build where the header is not installed guards the include:
 *
 *   #ifdef AUTOANALYZER
 *   #include <autoanalyzer/aa_user.h>
 *   #else
 *   #define AA_REGION_BEGIN(n) ((void)0)
 *   #define AA_REGION_END(n) ((void)0)
 *   #define AA_REGION_SCOPE(n)
 *   #define AA_PAUSE() ((void)0)
 *   #define AA_RESUME() ((void)0)
 *   #endif
 */
#ifndef AA_USER_H
#define AA_USER_H

#ifdef AUTOANALYZER

#ifdef __cplusplus
extern "C" {
#endif

struct aa_runtime_region;

/* The functions behind the macros (also declared in aa_runtime.h). */
void aa_runtime_user_begin(const char *name);
void aa_runtime_user_end(const char *name);
void aa_runtime_pause(void);
void aa_runtime_resume(void);
/* Enters the user region NAME and returns its descriptor, for
 * aa_runtime_scope_end (NULL when the region cannot be recorded). */
struct aa_runtime_region *aa_runtime_user_enter(const char *name);
void aa_runtime_scope_end(struct aa_runtime_region **r);

#ifdef __cplusplus
}
#endif

#define AA_REGION_BEGIN(name) aa_runtime_user_begin(name)
#define AA_REGION_END(name) aa_runtime_user_end(name)
#define AA_PAUSE() aa_runtime_pause()
#define AA_RESUME() aa_runtime_resume()

#define AA_USER_CAT_(a, b) a##b
#define AA_USER_CAT(a, b) AA_USER_CAT_(a, b)

#ifdef __cplusplus
namespace autoanalyzer {
/* Closes its region when it goes out of scope (exceptions included). */
class scoped_region {
  public:
    explicit scoped_region(const char *name) : r_(aa_runtime_user_enter(name)) {}
    ~scoped_region() { aa_runtime_scope_end(&r_); }
    scoped_region(const scoped_region &) = delete;
    scoped_region &operator=(const scoped_region &) = delete;

  private:
    struct aa_runtime_region *r_;
};
} // namespace autoanalyzer
#define AA_REGION_SCOPE(name)                                                   \
    ::autoanalyzer::scoped_region AA_USER_CAT(aa_user_scope_, __LINE__)(name)
#else
#define AA_REGION_SCOPE(name)                                                   \
    __attribute__((cleanup(aa_runtime_scope_end), unused))                     \
    struct aa_runtime_region *AA_USER_CAT(aa_user_scope_, __LINE__) =           \
        aa_runtime_user_enter(name)
#endif

#else /* !AUTOANALYZER: measurement off, nothing is referenced */

#define AA_REGION_BEGIN(name) ((void)0)
#define AA_REGION_END(name) ((void)0)
#define AA_REGION_SCOPE(name)
#define AA_PAUSE() ((void)0)
#define AA_RESUME() ((void)0)

#endif
#endif
