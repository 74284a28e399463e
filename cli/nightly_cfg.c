/*
 * cli/nightly_cfg.c -- the configuration of `autoanalyzer nightly`: key =
 * value lines (docs/nightly.md) checked key by key, every problem named
 * with file:line (exit 3): unknown or repeated keys, bad values, a name
 * that would be a path, NUL bytes, unterminated quotes.
 */
#include "cli/nightly_cfg.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>


static const char *const known_keys[] = {"name", "run", "build", "np", "workdir", "db", "out",
                                         "report", "env", "attr", "fail-on-new-cccr",
                                         "max-region-slowdown", "min-region-share", "analysis",
                                         "slowdown-metric", NULL};

void nightly_cfg_free(nightly_cfg *c)
{
    size_t i;
    free(c->name);
    free(c->run);
    free(c->build);
    free(c->workdir);
    free(c->db);
    free(c->out);
    free(c->report);
    free(c->analysis);
    free(c->slowdown_metric);
    for (i = 0; i < c->nenv; i++)
        free(c->env[i]);
    for (i = 0; i < c->nattr; i++)
        free(c->attr[i]);
    free(c->env);
    free(c->attr);
}

static char *trim(char *s)
{
    char *e;
    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* "10%" -> 0.10, "0.1" -> 0.1; -1 on junk. */
static int parse_fraction(const char *v, double *out)
{
    char buf[64];
    size_t n = strlen(v);
    int pct = 0;
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, v, n + 1);
    /* the % is required: a bare 10 would be read as 1000% */
    if (buf[n - 1] == '%') {
        buf[n - 1] = '\0';
        pct = 1;
    }
    if (!pct || aa_parse_double(trim(buf), out) || *out < 0)
        return -1;
    *out /= 100;
    return 0;
}

/* The configuration name becomes part of file and directory names: no
 * path separators, no leading dot (so no "..", no hidden files). */
static int plain_name(const char *v)
{
    if (!*v || *v == '.')
        return 0;
    for (; *v; v++)
        if (!isalnum((unsigned char)*v) && *v != '.' && *v != '_' && *v != '-')
            return 0;
    return 1;
}

static int push_str(char ***arr, size_t *n, const char *s)
{
    char **na = realloc(*arr, (*n + 1) * sizeof *na);
    if (!na)
        return -1;
    *arr = na;
    na[(*n)++] = aa_strdup(s);
    return 0;
}

int nightly_cfg_read(const char *path, nightly_cfg *c, aa_err *err)
{
    char *text = NULL, *line, *next, *nul;
    size_t len = 0;
    int lineno = 0, rc = AA_OK;
    unsigned seen = 0;
    memset(c, 0, sizeof *c);
    c->max_slowdown = -1;
    c->min_share = 0.02;
    if ((rc = aa_read_file(path, &text, &len, err)))
        return rc;
    if ((nul = memchr(text, '\0', len)) != NULL) {
        int at = 1;
        for (const char *q = text; q < nul; q++)
            at += *q == '\n';
        free(text);
        return aa_err_set(err, AA_EINPUT, "%s:%d: NUL byte (not a text file)", path, at);
    }
    for (line = text; line && *line; line = next) {
        char *eq, *key, *val, **slot = NULL;
        int k, ki = -1;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        key = trim(line);
        if (!*key || *key == '#')
            continue;
        if (*key == '[') {
            rc = aa_err_set(err, AA_EINPUT,
                            "%s:%d: sections are not used: one file describes one configuration "
                            "as flat `key = value` lines (docs/nightly.md)", path, lineno);
            break;
        }
        eq = strchr(key, '=');
        if (!eq) {
            rc = aa_err_set(err, AA_EINPUT, "%s:%d: expected `key = value`, got '%.60s'", path,
                            lineno, key);
            break;
        }
        *eq = '\0';
        val = trim(eq + 1);
        key = trim(key);
        for (k = 0; known_keys[k]; k++)
            if (!strcmp(key, known_keys[k]))
                ki = k;
        if (ki < 0) {
            int best = 1000, bi = -1;
            for (k = 0; known_keys[k]; k++) {
                int d = aa_edit_distance(key, known_keys[k]);
                if (d < best) {
                    best = d;
                    bi = k;
                }
            }
            if (best <= 3)
                rc = aa_err_set(err, AA_EINPUT, "%s:%d: unknown key '%s' (did you mean '%s'?)",
                                path, lineno, key, known_keys[bi]);
            else
                rc = aa_err_set(err, AA_EINPUT, "%s:%d: unknown key '%s'", path, lineno, key);
            break;
        }
        if (strcmp(key, "env") && strcmp(key, "attr")) {
            if (seen & (1u << ki)) {
                rc = aa_err_set(err, AA_EINPUT, "%s:%d: '%s' given twice", path, lineno, key);
                break;
            }
            seen |= 1u << ki;
        }
        if (!*val && strcmp(key, "build")) {
            rc = aa_err_set(err, AA_EINPUT, "%s:%d: '%s' has no value", path, lineno, key);
            break;
        }
        if (!strcmp(key, "name"))
            slot = &c->name;
        else if (!strcmp(key, "run")) {
            slot = &c->run;
            c->run_line = lineno;
        }
        else if (!strcmp(key, "build"))
            slot = &c->build;
        else if (!strcmp(key, "workdir"))
            slot = &c->workdir;
        else if (!strcmp(key, "db"))
            slot = &c->db;
        else if (!strcmp(key, "out"))
            slot = &c->out;
        else if (!strcmp(key, "report"))
            slot = &c->report;
        else if (!strcmp(key, "analysis")) {
            slot = &c->analysis;
            c->analysis_line = lineno;
        }
        if (slot == &c->name && !plain_name(val)) {
            rc = aa_err_set(err, AA_EINPUT,
                            "%s:%d: name must be a plain name (letters, digits, '.', '_', '-'; "
                            "not starting with '.'), not '%s': it names files and directories",
                            path, lineno, val);
            break;
        }
        if (slot) {
            *slot = aa_strdup(val);
        } else if (!strcmp(key, "np")) {
            long np;
            if (aa_parse_long(val, &np) || np < 1 || np > 1000000) {
                rc = aa_err_set(err, AA_EINPUT, "%s:%d: np must be a positive number, not '%s'",
                                path, lineno, val);
                break;
            }
            c->np = (int)np;
        } else if (!strcmp(key, "env") || !strcmp(key, "attr")) {
            if (!strchr(val, '=') || val[0] == '=') {
                rc = aa_err_set(err, AA_EINPUT, "%s:%d: %s wants KEY=VALUE, not '%s'", path,
                                lineno, key, val);
                break;
            }
            if (!strcmp(key, "env") ? push_str(&c->env, &c->nenv, val)
                                    : push_str(&c->attr, &c->nattr, val)) {
                rc = aa_err_set(err, AA_EENV, "out of memory");
                break;
            }
        } else if (!strcmp(key, "fail-on-new-cccr")) {
            if (!strcmp(val, "yes") || !strcmp(val, "true") || !strcmp(val, "1"))
                c->fail_new = 1;
            else if (!strcmp(val, "no") || !strcmp(val, "false") || !strcmp(val, "0"))
                c->fail_new = 0;
            else {
                rc = aa_err_set(err, AA_EINPUT, "%s:%d: fail-on-new-cccr wants yes or no, not '%s'",
                                path, lineno, val);
                break;
            }
        } else if (!strcmp(key, "slowdown-metric")) {
            if (strcmp(val, "wall") && strcmp(val, "cpu")) {
                rc = aa_err_set(err, AA_EINPUT, "%s:%d: slowdown-metric wants wall or cpu, not "
                                                "'%s'", path, lineno, val);
                break;
            }
            c->slowdown_metric = aa_strdup(val);
        } else if (!strcmp(key, "max-region-slowdown") || !strcmp(key, "min-region-share")) {
            double f;
            if (parse_fraction(val, &f)) {
                rc = aa_err_set(err, AA_EINPUT, "%s:%d: %s wants a percentage with its %% sign, "
                                                "such as 10%%, not '%s'", path, lineno, key, val);
                break;
            }
            if (!strcmp(key, "max-region-slowdown"))
                c->max_slowdown = f;
            else
                c->min_share = f;
        }
    }
    if (rc == AA_OK && !c->name)
        rc = aa_err_set(err, AA_EINPUT, "%s:%d: missing required key 'name'", path, lineno);
    if (rc == AA_OK && !c->run)
        rc = aa_err_set(err, AA_EINPUT, "%s:%d: missing required key 'run'", path, lineno);
    free(text);
    return rc;
}


void nightly_free_words(char **w, int n)
{
    for (int i = 0; i < n; i++)
        free(w[i]);
    free(w);
}

/* Splits a command line into words (quotes '...' and "...", backslash).
 * WORDS_QUOTE for an unterminated quote, WORDS_EMPTY for no word; on any
 * error nothing stays allocated. */
int nightly_split_words(const char *s, char ***words, int *n)
{
    aa_buf w;
    int in_word = 0, rc = WORDS_OK;
    char q = 0;
    *words = NULL;
    *n = 0;
    aa_buf_init(&w);
    for (;; s++) {
        char c = *s;
        if (!q && (c == '\0' || isspace((unsigned char)c))) {
            if (in_word) {
                char **nw = realloc(*words, (size_t)(*n + 2) * sizeof *nw);
                if (!nw) {
                    rc = WORDS_NOMEM;
                    break;
                }
                *words = nw;
                nw[(*n)++] = aa_buf_detach(&w);
                nw[*n] = NULL;
                in_word = 0;
            }
            if (c == '\0')
                break;
            continue;
        }
        if (c == '\0') {
            rc = WORDS_QUOTE;
            break;
        }
        in_word = 1;
        if (q) {
            if (c == q)
                q = 0;
            else if (c == '\\' && q == '"' && (s[1] == '"' || s[1] == '\\'))
                aa_buf_putc(&w, *++s);
            else
                aa_buf_putc(&w, c);
        } else if (c == '\'' || c == '"') {
            q = c;
        } else if (c == '\\' && s[1]) {
            aa_buf_putc(&w, *++s);
        } else {
            aa_buf_putc(&w, c);
        }
    }
    aa_buf_free(&w);
    if (rc == WORDS_OK && *n == 0)
        rc = WORDS_EMPTY;
    if (rc != WORDS_OK) {
        nightly_free_words(*words, *n);
        *words = NULL;
        *n = 0;
    }
    return rc;
}

/* The message for a split_words failure of key's value at path:line. */
int nightly_words_error(aa_err *err, int why, const char *path, int line, const char *key,
                       const char *val)
{
    if (why == WORDS_NOMEM)
        return aa_err_set(err, AA_EENV, "out of memory");
    return aa_err_set(err, AA_EINPUT, "%s:%d: %s: %s: %s", path, line, key,
                      why == WORDS_QUOTE ? "unterminated quote" : "no command given", val);
}

