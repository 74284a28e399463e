/*
 * common/json_read.c -- the JSON reader for the files the project reads
 * back (an analysis given to --refine): a strict RFC 8259 parser into a
 * small tree whose every value knows its line, so a caller can say
 * `file:line: what` about a value of the wrong kind.  Malformed text
 * (truncation, junk after the value, bad escapes, control characters,
 * nesting deeper than AA_JSON_MAX_DEPTH) is AA_EINPUT naming file:line.
 */
#include "common/aa_common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define AA_JSON_MAX_DEPTH 200

typedef struct jparser {
    const char *s, *end;
    const char *name;
    int line;
    aa_err *err;
} jparser;

static int jfail(jparser *P, const char *what)
{
    if (P->s >= P->end)
        return aa_err_set(P->err, AA_EINPUT, "%s:%d: %s (the JSON ends early)", P->name,
                          P->line, what);
    return aa_err_set(P->err, AA_EINPUT, "%s:%d: %s", P->name, P->line, what);
}

static void skip_space(jparser *P)
{
    while (P->s < P->end) {
        char c = *P->s;
        if (c == '\n')
            P->line++;
        else if (c != ' ' && c != '\t' && c != '\r')
            return;
        P->s++;
    }
}

static int literal(jparser *P, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(P->end - P->s) < n || memcmp(P->s, word, n) != 0)
        return jfail(P, "unexpected text: expected a JSON value");
    P->s += n;
    return AA_OK;
}

static int hex4(jparser *P, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = P->s < P->end ? *P->s++ : '\0';
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return jfail(P, "bad \\u escape in a string");
    }
    *out = v;
    return AA_OK;
}

static void put_utf8(aa_buf *b, unsigned cp)
{
    if (cp < 0x80) {
        aa_buf_putc(b, (char)cp);
    } else if (cp < 0x800) {
        aa_buf_putc(b, (char)(0xC0 | (cp >> 6)));
        aa_buf_putc(b, (char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        aa_buf_putc(b, (char)(0xE0 | (cp >> 12)));
        aa_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        aa_buf_putc(b, (char)(0x80 | (cp & 0x3F)));
    } else {
        aa_buf_putc(b, (char)(0xF0 | (cp >> 18)));
        aa_buf_putc(b, (char)(0x80 | ((cp >> 12) & 0x3F)));
        aa_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        aa_buf_putc(b, (char)(0x80 | (cp & 0x3F)));
    }
}

/* A string literal (P->s at the opening quote) into *out. */
static int parse_string(jparser *P, char **out)
{
    aa_buf b;
    int rc = AA_OK;
    aa_buf_init(&b);
    aa_buf_add(&b, "", 0);
    P->s++;
    for (;;) {
        unsigned char c;
        if (P->s >= P->end) {
            rc = jfail(P, "unterminated string");
            break;
        }
        c = (unsigned char)*P->s++;
        if (c == '"')
            break;
        if (c < 0x20) {
            rc = jfail(P, "control character in a string");
            break;
        }
        if (c != '\\') {
            aa_buf_putc(&b, (char)c);
            continue;
        }
        c = P->s < P->end ? (unsigned char)*P->s++ : '\0';
        switch (c) {
        case '"': case '\\': case '/': aa_buf_putc(&b, (char)c); break;
        case 'b': aa_buf_putc(&b, '\b'); break;
        case 'f': aa_buf_putc(&b, '\f'); break;
        case 'n': aa_buf_putc(&b, '\n'); break;
        case 'r': aa_buf_putc(&b, '\r'); break;
        case 't': aa_buf_putc(&b, '\t'); break;
        case 'u': {
            unsigned cp, lo;
            if ((rc = hex4(P, &cp)))
                break;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (P->end - P->s < 2 || P->s[0] != '\\' || P->s[1] != 'u') {
                    rc = jfail(P, "unpaired surrogate in a \\u escape");
                    break;
                }
                P->s += 2;
                if ((rc = hex4(P, &lo)))
                    break;
                if (lo < 0xDC00 || lo > 0xDFFF) {
                    rc = jfail(P, "unpaired surrogate in a \\u escape");
                    break;
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                rc = jfail(P, "unpaired surrogate in a \\u escape");
                break;
            }
            if (cp == 0) {
                rc = jfail(P, "\\u0000 in a string");
                break;
            }
            put_utf8(&b, cp);
            break;
        }
        default:
            rc = jfail(P, "bad escape in a string");
        }
        if (rc)
            break;
    }
    if (!rc && b.failed)
        rc = aa_err_set(P->err, AA_EENV, "%s: out of memory", P->name);
    if (rc) {
        aa_buf_free(&b);
        return rc;
    }
    *out = aa_buf_detach(&b);
    return AA_OK;
}

static int parse_number(jparser *P, aa_jv *v)
{
    const char *st = P->s, *p = P->s;
    char tmp[128];
    size_t n;
    int integral = 1;
    if (p < P->end && *p == '-')
        p++;
    if (p < P->end && *p == '0')
        p++;
    else if (p < P->end && *p >= '1' && *p <= '9')
        while (p < P->end && *p >= '0' && *p <= '9')
            p++;
    else
        return jfail(P, "malformed number");
    if (p < P->end && *p == '.') {
        integral = 0;
        if (++p >= P->end || *p < '0' || *p > '9')
            return jfail(P, "malformed number");
        while (p < P->end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < P->end && (*p == 'e' || *p == 'E')) {
        integral = 0;
        p++;
        if (p < P->end && (*p == '+' || *p == '-'))
            p++;
        if (p >= P->end || *p < '0' || *p > '9')
            return jfail(P, "malformed number");
        while (p < P->end && *p >= '0' && *p <= '9')
            p++;
    }
    n = (size_t)(p - st);
    if (n >= sizeof tmp)
        return jfail(P, "number too long");
    memcpy(tmp, st, n);
    tmp[n] = '\0';
    v->type = AA_JV_NUM;
    v->num = strtod(tmp, NULL);
    if (integral && tmp[0] != '-') {
        errno = 0;
        v->u64 = strtoull(tmp, NULL, 10);
        v->is_u64 = errno == 0;
    }
    P->s = p;
    return AA_OK;
}

static int parse_value(jparser *P, aa_jv *v, int depth);

static int grow(jparser *P, aa_jv *v, size_t *cap)
{
    if (v->n < *cap)
        return AA_OK;
    size_t nc = *cap ? *cap * 2 : 4;
    aa_jv *ni = realloc(v->items, nc * sizeof *ni);
    if (!ni)
        return aa_err_set(P->err, AA_EENV, "%s: out of memory", P->name);
    v->items = ni;
    if (v->type == AA_JV_OBJ) {
        char **nk = realloc(v->keys, nc * sizeof *nk);
        if (!nk)
            return aa_err_set(P->err, AA_EENV, "%s: out of memory", P->name);
        v->keys = nk;
    }
    *cap = nc;
    return AA_OK;
}

/* An array or object (P->s at the opening bracket). */
static int parse_container(jparser *P, aa_jv *v, int depth)
{
    int obj = *P->s == '{';
    char close = obj ? '}' : ']';
    size_t cap = 0;
    int rc;
    v->type = obj ? AA_JV_OBJ : AA_JV_ARR;
    if (depth >= AA_JSON_MAX_DEPTH)
        return jfail(P, "nesting too deep");
    P->s++;
    skip_space(P);
    if (P->s < P->end && *P->s == close) {
        P->s++;
        return AA_OK;
    }
    for (;;) {
        char *key = NULL;
        skip_space(P);
        if (obj) {
            if (P->s >= P->end || *P->s != '"')
                return jfail(P, "expected a member name in quotes");
            if ((rc = parse_string(P, &key)))
                return rc;
            skip_space(P);
            if (P->s >= P->end || *P->s != ':') {
                free(key);
                return jfail(P, "expected ':' after a member name");
            }
            P->s++;
        }
        if ((rc = grow(P, v, &cap))) {
            free(key);
            return rc;
        }
        memset(&v->items[v->n], 0, sizeof v->items[v->n]);
        if (obj)
            v->keys[v->n] = key;
        v->n++; /* counted before parsing, so a failure frees it */
        if ((rc = parse_value(P, &v->items[v->n - 1], depth + 1)))
            return rc;
        skip_space(P);
        if (P->s < P->end && *P->s == ',') {
            P->s++;
            continue;
        }
        if (P->s < P->end && *P->s == close) {
            P->s++;
            return AA_OK;
        }
        return jfail(P, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int parse_value(jparser *P, aa_jv *v, int depth)
{
    skip_space(P);
    v->line = P->line;
    if (P->s >= P->end)
        return jfail(P, "expected a JSON value");
    switch (*P->s) {
    case '{': case '[': return parse_container(P, v, depth);
    case '"': v->type = AA_JV_STR; return parse_string(P, &v->str);
    case 't': v->type = AA_JV_BOOL; v->num = 1; return literal(P, "true");
    case 'f': v->type = AA_JV_BOOL; return literal(P, "false");
    case 'n': v->type = AA_JV_NULL; return literal(P, "null");
    default: return parse_number(P, v);
    }
}

static void jv_clear(aa_jv *v)
{
    for (size_t i = 0; i < v->n; i++) {
        jv_clear(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
}

void aa_jv_free(aa_jv *v)
{
    if (v) {
        jv_clear(v);
        free(v);
    }
}

int aa_json_parse(const char *text, size_t len, const char *name, aa_jv **out, aa_err *err)
{
    jparser P = {text, text + len, name, 1, err};
    aa_jv *v = calloc(1, sizeof *v);
    int rc;
    *out = NULL;
    if (!v)
        return aa_err_set(err, AA_EENV, "%s: out of memory", name);
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        P.s += 3; /* a UTF-8 byte order mark */
    rc = parse_value(&P, v, 0);
    if (!rc) {
        skip_space(&P);
        if (P.s < P.end)
            rc = aa_err_set(err, AA_EINPUT, "%s:%d: unexpected text after the JSON value",
                            name, P.line);
    }
    if (rc) {
        aa_jv_free(v);
        return rc;
    }
    *out = v;
    return AA_OK;
}

const aa_jv *aa_jv_get(const aa_jv *obj, const char *key)
{
    if (!obj || obj->type != AA_JV_OBJ)
        return NULL;
    for (size_t i = obj->n; i-- > 0;) /* the last of duplicate names wins */
        if (strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}

const char *aa_jv_type_name(const aa_jv *v)
{
    static const char *const names[] = {"null", "true/false", "number", "string", "array",
                                         "object"};
    return v ? names[v->type] : "nothing";
}
