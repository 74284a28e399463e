/*
 * common/aa_common.h -- small pieces every AutoAnalyzer component shares:
 * error reporting (libraries return a status and fill an aa_err, only cli/
 * turns it into an exit status), a growable string buffer, output files
 * (atomic for regular files, in place for devices and FIFOs), a streaming JSON
 * writer and a strict JSON reader, and number parsing that rejects trailing junk, NaN and infinity.
 */
#ifndef AA_COMMON_H
#define AA_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Status codes.  The numeric values of the first four are the exit statuses
 * of SPEC §2, so cli/ can return them unchanged. */
enum aa_status {
    AA_OK = 0,
    AA_EFINDING = 1, /* a gate asked to fail on findings */
    AA_EUSAGE = 2,   /* bad command line or API misuse */
    AA_EINPUT = 3,   /* malformed input file */
    AA_EENV = 4,     /* environment: missing file, I/O error, no memory, ... */
};

typedef struct aa_err {
    int code;
    char msg[2048];
} aa_err;

/* Sets err (when not NULL) and returns code, so `return aa_err_set(...)`. */
int aa_err_set(aa_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int aa_err_setv(aa_err *err, int code, const char *fmt, va_list ap);
/* Prefixes the existing message with "prefix: ". */
void aa_err_prefix(aa_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void aa_err_clear(aa_err *err);

/* ---- growable string buffer ------------------------------------------- */
typedef struct aa_buf {
    char *data; /* always NUL-terminated when len > 0 or after any append */
    size_t len, cap;
    int failed; /* an allocation failed; contents are truncated */
} aa_buf;

void aa_buf_init(aa_buf *b);
void aa_buf_free(aa_buf *b);
void aa_buf_reset(aa_buf *b);
void aa_buf_add(aa_buf *b, const void *data, size_t n);
void aa_buf_puts(aa_buf *b, const char *s);
void aa_buf_putc(aa_buf *b, char c);
void aa_buf_printf(aa_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Takes ownership of the contents; the buffer is left empty. */
char *aa_buf_detach(aa_buf *b);

/* A set of ranks, compactly (common/rankset.c): sorted, duplicates dropped,
 * runs as "0-1535", progressions of three or more as "1-2045:4" (step 4),
 * the rest one by one, comma-separated; or, when shorter, as a union of
 * residue classes modulo a step up to 16 written that way, in the order of
 * their first rank ("0-2046:2,3-2047:4").  Nothing for an empty set. */
void aa_put_rankset(aa_buf *out, const int *ranks, size_t n);
char *aa_rankset_str(const int *ranks, size_t n); /* caller frees; NULL: no memory */

/* ---- output files -------------------------------------------------------
 * Every output (-o, --json, --xml, space export -o, reports) is written
 * through these.  aa_atomic_open follows symbolic links to their target and
 * then, for a regular or new file, creates "<target>.tmp.<pid>.<n>" next to
 * it; for a device, FIFO or socket it opens the target in place; "-" is
 * stdout.  Write to af->fp, then aa_atomic_commit (flush; for a temporary,
 * fsync and rename over the target, keeping a replaced file's permissions)
 * or aa_atomic_abort (remove the temporary).  A failed or aborted write
 * never leaves a partial regular file behind. */
typedef struct aa_atomic_file {
    FILE *fp;
    char *path; /* the resolved target; NULL for stdout */
    char *tmp;  /* the temporary; NULL when written in place */
} aa_atomic_file;

int aa_atomic_open(aa_atomic_file *af, const char *path, aa_err *err);
int aa_atomic_commit(aa_atomic_file *af, aa_err *err);
void aa_atomic_abort(aa_atomic_file *af);
/* Writes a whole buffer atomically. */
int aa_write_file_atomic(const char *path, const void *data, size_t n, aa_err *err);
/* Reads a whole file (NUL-terminated); *len may be NULL. */
int aa_read_file(const char *path, char **data, size_t *len, aa_err *err);

/* ---- numbers ------------------------------------------------------------ */
/* Parse a whole string as a finite double / integer: no trailing junk, no
 * NaN or infinity, no empty string.  Return 0 on success, -1 otherwise. */
int aa_parse_double(const char *s, double *out);
int aa_parse_long(const char *s, long *out);
int aa_parse_u32(const char *s, uint32_t *out);
/* Shortest text that reads back as exactly the same double ("%.17g" fallback). */
void aa_format_double(char out[32], double v);

/* ---- numbers ------------------------------------------------------------ */
/* The k-th smallest of v[0..n) (0-based; n > k), v reordered so that no
 * larger value comes before position k and no smaller one after it
 * (common/select.c). */
double aa_select_kth(double *v, size_t n, size_t k);

/* ---- strings ------------------------------------------------------------ */
char *aa_strdup(const char *s); /* NULL-safe: aa_strdup(NULL) == NULL */
/* Levenshtein distance, for "did you mean". */
int aa_edit_distance(const char *a, const char *b);
/* fnmatch-style glob match ('*', '?', '[...]'). */
int aa_glob_match(const char *pattern, const char *s);

/* ---- JSON writer -------------------------------------------------------- */
/* Streaming writer with automatic commas.  Strings are escaped; non-finite
 * numbers are written as null.  Pretty-printed with two-space indent when
 * pretty != 0. */
typedef struct aa_json {
    aa_buf *out;
    int depth;
    int pretty;
    unsigned char first[64]; /* per depth: no element written yet */
    int after_key;
} aa_json;

void aa_json_init(aa_json *j, aa_buf *out, int pretty);
void aa_json_obj_begin(aa_json *j);
void aa_json_obj_end(aa_json *j);
void aa_json_arr_begin(aa_json *j);
void aa_json_arr_end(aa_json *j);
void aa_json_key(aa_json *j, const char *key);
void aa_json_str(aa_json *j, const char *s);
void aa_json_num(aa_json *j, double v);
void aa_json_int(aa_json *j, long long v);
void aa_json_bool(aa_json *j, int v);
void aa_json_null(aa_json *j);
/* Escapes s as a JSON string literal (with quotes) into b. */
void aa_json_escape(aa_buf *b, const char *s);

/* ---- JSON reader (common/json_read.c) ------------------------------------
 * A strict parser into a tree; every value carries the line it starts on. */
enum { AA_JV_NULL, AA_JV_BOOL, AA_JV_NUM, AA_JV_STR, AA_JV_ARR, AA_JV_OBJ };
typedef struct aa_jv {
    int type;
    int line;
    double num;      /* NUM (and BOOL: 1 for true) */
    uint64_t u64;    /* NUM written as a non-negative integer that fits */
    int is_u64;
    char *str;       /* STR */
    size_t n;        /* ARR, OBJ: number of items */
    struct aa_jv *items;
    char **keys;     /* OBJ: the member names, parallel to items */
} aa_jv;
/* Parses text (name is the file, for messages "name:line: ..."): AA_EINPUT
 * on malformed JSON, AA_EENV on no memory. */
int aa_json_parse(const char *text, size_t len, const char *name, aa_jv **out, aa_err *err);
void aa_jv_free(aa_jv *v);
/* The member `key` of an object (NULL when absent or not an object). */
const aa_jv *aa_jv_get(const aa_jv *obj, const char *key);
/* "string", "number", ... for messages. */
const char *aa_jv_type_name(const aa_jv *v);

#endif
