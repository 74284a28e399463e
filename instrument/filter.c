/*
 * instrument/filter.c -- which regions to instrument: include/exclude
 * rules over function and file names (command-line globs and Score-P-like
 * filter files), the region plan file (--plan: eliminate / split / merge),
 * the refinement set read from a round-1 analysis (--refine), and the
 * profile filter of a measured experiment (--filter-from, also taken from
 * the experiment.xml beside a refine file).  File formats are described in
 * docs/instrument.md.
 */
#include "instrument/instr_private.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

aa_instr_filter *aa_instr_filter_new(void)
{
    return calloc(1, sizeof(aa_instr_filter));
}

void aa_instr_filter_free(aa_instr_filter *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++)
        free(f->rules[i].glob);
    free(f->rules);
    free(f);
}

int aa_instr_filter_add(aa_instr_filter *f, char what, int include, const char *glob)
{
    instr_rule *r = realloc(f->rules, (f->n + 1) * sizeof *r);
    if (!r)
        return -1;
    f->rules = r;
    r[f->n].what = what;
    r[f->n].include = include;
    r[f->n].glob = aa_strdup(glob);
    if (!r[f->n].glob)
        return -1;
    f->n++;
    return 0;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

int aa_instr_filter_accepts(const aa_instr_filter *f, const char *file, const char *function)
{
    int fn_ok = 1, file_ok = 1;
    if (!f)
        return 1;
    for (size_t i = 0; i < f->n; i++) {
        const instr_rule *r = &f->rules[i];
        if (r->what == 'F') {
            if (function && aa_glob_match(r->glob, function))
                fn_ok = r->include;
        } else if (file && (aa_glob_match(r->glob, file) ||
                            aa_glob_match(r->glob, base_name(file)))) {
            file_ok = r->include;
        }
    }
    return fn_ok && file_ok;
}

int aa_instr_filter_names(const aa_instr_filter *f, const char *file, const char *function)
{
    int named = 0;
    if (!f || !function)
        return 0;
    for (size_t i = 0; i < f->n; i++) {
        const instr_rule *r = &f->rules[i];
        if (r->what == 'F' && aa_glob_match(r->glob, function))
            named = r->include && !strpbrk(r->glob, "*?[");
    }
    return named && aa_instr_filter_accepts(f, file, function);
}

/* Splits a line into whitespace-separated words in place (max n). */
static int split_words(char *line, char **w, int n)
{
    int k = 0;
    char *p = line;
    while (*p && k < n) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (!*p || *p == '#')
            break;
        w[k++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        if (*p)
            *p++ = '\0';
    }
    return k;
}

int aa_instr_filter_load(aa_instr_filter *f, const char *path, aa_err *err)
{
    char *data, *line, *next;
    size_t len;
    int rc = aa_read_file(path, &data, &len, err), lineno = 0;
    char section = 0; /* 'F' region names, 'P' file names */
    if (rc)
        return rc;
    for (line = data; line && *line; line = next) {
        char *w[256], *nl = strchr(line, '\n');
        int n, include = -1;
        next = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        lineno++;
        n = split_words(line, w, 256);
        if (n == 0)
            continue;
        if (!strcmp(w[0], "SCOREP_REGION_NAMES_BEGIN") && !section) { section = 'F'; continue; }
        if (!strcmp(w[0], "SCOREP_FILE_NAMES_BEGIN") && !section) { section = 'P'; continue; }
        if ((!strcmp(w[0], "SCOREP_REGION_NAMES_END") && section == 'F') ||
            (!strcmp(w[0], "SCOREP_FILE_NAMES_END") && section == 'P')) {
            section = 0;
            continue;
        }
        if (section && !strcmp(w[0], "INCLUDE"))
            include = 1;
        else if (section && !strcmp(w[0], "EXCLUDE"))
            include = 0;
        if (include < 0) {
            rc = aa_err_set(err, AA_EINPUT, "%s:%d: unexpected '%s' (expected %s)", path,
                            lineno, w[0],
                            section ? "INCLUDE, EXCLUDE or the section end"
                                    : "SCOREP_REGION_NAMES_BEGIN or SCOREP_FILE_NAMES_BEGIN");
            goto out;
        }
        for (int i = 1; i < n; i++) {
            if (!strcmp(w[i], "MANGLED"))
                continue;
            if (aa_instr_filter_add(f, section, include, w[i])) {
                rc = aa_err_set(err, AA_EENV, "out of memory");
                goto out;
            }
        }
    }
    if (section)
        rc = aa_err_set(err, AA_EINPUT, "%s:%d: missing SCOREP_%s_NAMES_END", path, lineno,
                        section == 'F' ? "REGION" : "FILE");
out:
    free(data);
    return rc;
}

/* ---- plan ------------------------------------------------------------- */

aa_instr_plan *aa_instr_plan_new(void)
{
    return calloc(1, sizeof(aa_instr_plan));
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void aa_instr_plan_free(aa_instr_plan *p)
{
    if (!p)
        return;
    free_list(p->elim, p->nelim);
    free_list(p->split, p->nsplit);
    free_list(p->pfilter, p->npfilter);
    for (size_t i = 0; i < p->nmerge; i++)
        free_list(p->merge[i].names, p->merge[i].n);
    free(p->merge);
    free(p);
}

static int push(char ***v, size_t *n, const char *s)
{
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    *v = nv;
    if (!(nv[*n] = aa_strdup(s)))
        return -1;
    (*n)++;
    return 0;
}

int instr_plan_names(const char *ref, uint32_t id, const char *name)
{
    uint32_t v;
    if (aa_parse_u32(ref, &v) == 0)
        return v == id;
    if ((ref[0] == '0' && (ref[1] == 'x' || ref[1] == 'X'))) {
        char *end;
        unsigned long x = strtoul(ref + 2, &end, 16);
        return *end == '\0' && x == id;
    }
    return name && strcmp(ref, name) == 0;
}

int aa_instr_plan_load(aa_instr_plan *p, const char *path, aa_err *err)
{
    char *data;
    size_t len;
    int rc = aa_read_file(path, &data, &len, err), lineno = 0;
    char *line = data;
    if (rc)
        return rc;
    while (line && *line) {
        char *nl = strchr(line, '\n'), *w[256];
        int n;
        if (nl)
            *nl = '\0';
        lineno++;
        n = split_words(line, w, 256);
        if (n == 0) {
            /* blank or comment */
        } else if (!strcmp(w[0], "eliminate") || !strcmp(w[0], "split")) {
            if (n < 2) {
                rc = aa_err_set(err, AA_EINPUT, "%s:%d: '%s' needs a region id or name", path,
                                lineno, w[0]);
                break;
            }
            for (int i = 1; i < n; i++)
                if (w[0][0] == 'e' ? push(&p->elim, &p->nelim, w[i])
                                   : push(&p->split, &p->nsplit, w[i]))
                    rc = aa_err_set(err, AA_EENV, "out of memory");
        } else if (!strcmp(w[0], "merge")) {
            instr_merge *m;
            if (n < 3) {
                rc = aa_err_set(err, AA_EINPUT, "%s:%d: 'merge' needs at least two regions",
                                path, lineno);
                break;
            }
            m = realloc(p->merge, (p->nmerge + 1) * sizeof *m);
            if (!m) {
                rc = aa_err_set(err, AA_EENV, "out of memory");
                break;
            }
            p->merge = m;
            m = &p->merge[p->nmerge++];
            m->names = NULL;
            m->n = 0;
            for (int i = 1; i < n; i++)
                if (push(&m->names, &m->n, w[i]))
                    rc = aa_err_set(err, AA_EENV, "out of memory");
        } else {
            rc = aa_err_set(err, AA_EINPUT,
                            "%s:%d: unknown plan action '%s' (expected eliminate, split or merge)",
                            path, lineno, w[0]);
            break;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(data);
    return rc;
}

/* Collects the value after each occurrence of `key` (a number or string). */
static int scan_values(aa_instr_plan *p, const char *data, const char *key, int *found)
{
    const char *q = data;
    size_t kl = strlen(key);
    while ((q = strstr(q, key)) != NULL) {
        char tok[256];
        size_t n = 0;
        q += kl;
        while (*q == ' ' || *q == '\t' || *q == ':' || *q == '=')
            q++;
        if (*q == '"' || *q == '\'') {
            char quote = *q++;
            while (*q && *q != quote && n < sizeof tok - 1)
                tok[n++] = *q++;
        } else {
            while ((isalnum((unsigned char)*q) || *q == 'x') && n < sizeof tok - 1)
                tok[n++] = *q++;
        }
        tok[n] = '\0';
        if (n == 0)
            continue;
        if (push(&p->split, &p->nsplit, tok))
            return -1;
        (*found)++;
    }
    return 0;
}

int aa_instr_plan_load_refine(aa_instr_plan *p, const char *path, aa_err *err)
{
    char *data;
    size_t len;
    int rc = aa_read_file(path, &data, &len, err), found = 0;
    const char *q;
    if (rc)
        return rc;
    q = data;
    while (*q && isspace((unsigned char)*q))
        q++;
    if (*q == '{' || *q == '[') {
        /* analyze --json: every bottleneck's "region" (SPEC §9). */
        if (scan_values(p, data, "\"region\"", &found))
            rc = aa_err_set(err, AA_EENV, "out of memory");
    } else if (*q == '<') {
        /* XML: region="ID" attributes of bottleneck/critical elements. */
        if (scan_values(p, data, " region=", &found))
            rc = aa_err_set(err, AA_EENV, "out of memory");
    } else {
        char *line = data;
        while (line && *line && !rc) {
            char *nl = strchr(line, '\n'), *w[2];
            if (nl)
                *nl = '\0';
            if (split_words(line, w, 1) == 1) {
                if (push(&p->split, &p->nsplit, w[0]))
                    rc = aa_err_set(err, AA_EENV, "out of memory");
                found++;
            }
            line = nl ? nl + 1 : NULL;
        }
    }
    if (!rc && found == 0)
        rc = aa_err_set(err, AA_EINPUT, "%s:1: no critical regions found in the analysis", path);
    free(data);
    if (!rc) {
        /* the run directory of `autoanalyzer run --out DIR` holds the
         * measured experiment beside analysis.json: filter with it too */
        aa_buf dir;
        const char *sl = strrchr(path, '/');
        aa_buf_init(&dir);
        if (sl)
            aa_buf_printf(&dir, "%.*s/experiment.xml", (int)(sl - path), path);
        else
            aa_buf_puts(&dir, "experiment.xml");
        if (dir.data && !dir.failed)
            rc = aa_instr_plan_load_filter_from(p, dir.data, 1, err);
        aa_buf_free(&dir);
    }
    return rc;
}

int aa_instr_plan_load_filter_from(aa_instr_plan *p, const char *exp, int quiet_missing,
                                   aa_err *err)
{
    aa_pfilter f;
    aa_pfilter_opts o = {AA_PFILTER_MIN_VISITS, AA_PFILTER_MAX_NS, AA_PFILTER_PROBE_NS};
    int rc;
    if (quiet_missing && access(exp, R_OK) != 0)
        return AA_OK;
    rc = aa_pfilter_compute(exp, &o, &f, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < f.n && !rc; i++)
        if (push(&p->pfilter, &p->npfilter, f.v[i].function))
            rc = aa_err_set(err, AA_EENV, "out of memory");
    aa_pfilter_free(&f);
    return rc;
}
