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
#include <libxml/parser.h>
#include <libxml/tree.h>
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

static int read_text(const char *path, char **data, size_t *len, aa_err *err);

int aa_instr_filter_load(aa_instr_filter *f, const char *path, aa_err *err)
{
    char *data, *line, *next;
    size_t len;
    int rc = read_text(path, &data, &len, err), lineno = 0;
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
        if (!strncmp(w[0], "SCOREP_", 7) && n > 1) {
            rc = aa_err_set(err, AA_EINPUT, "%s:%d: unexpected '%s' after %s", path, lineno,
                            w[1], w[0]);
            goto out;
        }
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
        if (n == 1 || (n == 2 && !strcmp(w[1], "MANGLED"))) {
            rc = aa_err_set(err, AA_EINPUT, "%s:%d: %s without a name", path, lineno, w[0]);
            goto out;
        }
        if (n == 256) {
            rc = aa_err_set(err, AA_EINPUT, "%s:%d: more than 254 names on one line", path,
                            lineno);
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
    free(p->elim_at);
    free_list(p->split, p->nsplit);
    free(p->split_at);
    free_list(p->pfilter, p->npfilter);
    for (size_t i = 0; i < p->nmerge; i++)
        free_list(p->merge[i].names, p->merge[i].n);
    free(p->merge);
    free_list(p->files, p->nfiles);
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

/* push() with the entry's origin in the parallel array *at. */
static int push_at(char ***v, instr_origin **at, size_t *n, const char *s, instr_origin o)
{
    instr_origin *na = realloc(*at, (*n + 1) * sizeof *na);
    if (!na)
        return -1;
    *at = na;
    na[*n] = o;
    return push(v, n, s);
}

/* The plan's own copy of a file name, for the origins of its entries. */
static const char *plan_file(aa_instr_plan *p, const char *path)
{
    if (p->nfiles && strcmp(p->files[p->nfiles - 1], path) == 0)
        return p->files[p->nfiles - 1];
    return push(&p->files, &p->nfiles, path) ? NULL : p->files[p->nfiles - 1];
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

/* Checks one region reference of a plan or refine list: a decimal id
 * below 2^32, a 0x hex id of at most 8 digits, or a name (a C identifier,
 * optionally with `@line` and the characters of generated names such as
 * merge(a+b), or a C++ name such as ns::Vec<T>::operator[] or
 * (anonymous)::f).  NULL when fine, else what is wrong. */
static const char *bad_ref(const char *r)
{
    uint32_t v;
    if (isdigit((unsigned char)r[0])) {
        if (r[0] == '0' && (r[1] == 'x' || r[1] == 'X')) {
            size_t n = strspn(r + 2, "0123456789abcdefABCDEF");
            if (n == 0 || r[2 + n] != '\0')
                return "is not a region id (malformed hex)";
            n = strspn(r + 2, "0");
            return strlen(r + 2 + n) > 8 ? "is not a region id (ids are below 2^32)" : NULL;
        }
        if (strspn(r, "0123456789") != strlen(r))
            return "is not a region id or name";
        return aa_parse_u32(r, &v) ? "is not a region id (ids are below 2^32)" : NULL;
    }
    if (!isalpha((unsigned char)r[0]) && r[0] != '_' && strncmp(r, "(anonymous)", 11))
        return "is not a region id or name";
    for (const char *q = r; *q; q++) /* C++ names: ns::C<T>::operator[], main/lambda@4 */
        if (!isalnum((unsigned char)*q) && !strchr("_@.:+()$~-<>,*&[]/=!%^|", *q))
            return "is not a region id or name";
    return NULL;
}

/* Another entry of the plan naming the same region with an action that
 * excludes `act` ('e' eliminate, 's' split, 'm' merge; a region may be in
 * one merge only): its origin and action, or NULL. */
static const instr_origin *contradiction(const aa_instr_plan *p, char act, const char *ref,
                                         const char **other)
{
    if (act != 'e')
        for (size_t i = 0; i < p->nelim; i++)
            if (!strcmp(p->elim[i], ref)) {
                *other = "eliminate";
                return &p->elim_at[i];
            }
    if (act != 's')
        for (size_t i = 0; i < p->nsplit; i++)
            if (!strcmp(p->split[i], ref)) {
                *other = "split";
                return &p->split_at[i];
            }
    for (size_t g = 0; g < p->nmerge; g++)
        for (size_t i = 0; i < p->merge[g].n; i++)
            if (!strcmp(p->merge[g].names[i], ref)) {
                *other = "merge";
                return &p->merge[g].at;
            }
    return NULL;
}

/* Validates and records one reference of action act at origin o. */
static int plan_add(aa_instr_plan *p, char act, const char *ref, instr_origin o,
                    instr_merge *m, aa_err *err)
{
    static const char *const names[] = {"eliminate", "split", "merge"};
    const char *why = bad_ref(ref), *other;
    const char *me = names[act == 'e' ? 0 : act == 's' ? 1 : 2];
    const instr_origin *c;
    if (why)
        return aa_err_set(err, AA_EINPUT, "%s:%d: '%s' %s", o.file, o.line, ref, why);
    if ((c = contradiction(p, act, ref, &other)) != NULL)
        return aa_err_set(err, AA_EINPUT, "%s:%d: '%s %s' contradicts '%s %s' at %s:%d",
                          o.file, o.line, me, ref, other, ref, c->file, c->line);
    if (act == 'm') {
        for (size_t i = 0; i < m->n; i++)
            if (!strcmp(m->names[i], ref))
                return aa_err_set(err, AA_EINPUT, "%s:%d: '%s' appears twice in one merge",
                                  o.file, o.line, ref);
        return push(&m->names, &m->n, ref) ? aa_err_set(err, AA_EENV, "out of memory") : AA_OK;
    }
    if (act == 'e' ? push_at(&p->elim, &p->elim_at, &p->nelim, ref, o)
                   : push_at(&p->split, &p->split_at, &p->nsplit, ref, o))
        return aa_err_set(err, AA_EENV, "out of memory");
    return AA_OK;
}

/* A line of a plan file: `eliminate|split REF...` or `merge REF REF...`. */
static int plan_line(aa_instr_plan *p, char **w, int n, instr_origin o, aa_err *err)
{
    int rc = AA_OK;
    if (!strcmp(w[0], "eliminate") || !strcmp(w[0], "split")) {
        if (n < 2)
            return aa_err_set(err, AA_EINPUT, "%s:%d: '%s' needs a region id or name", o.file,
                              o.line, w[0]);
        for (int i = 1; i < n && !rc; i++)
            rc = plan_add(p, w[0][0], w[i], o, NULL, err);
        return rc;
    }
    if (!strcmp(w[0], "merge")) {
        instr_merge *m;
        if (n < 3)
            return aa_err_set(err, AA_EINPUT, "%s:%d: 'merge' needs at least two regions",
                              o.file, o.line);
        m = realloc(p->merge, (p->nmerge + 1) * sizeof *m);
        if (!m)
            return aa_err_set(err, AA_EENV, "out of memory");
        p->merge = m;
        m = &p->merge[p->nmerge];
        m->names = NULL;
        m->n = 0;
        m->at = o;
        for (int i = 1; i < n && !rc; i++)
            rc = plan_add(p, 'm', w[i], o, m, err);
        p->nmerge++; /* kept even on failure, so it is freed */
        return rc;
    }
    return aa_err_set(err, AA_EINPUT,
                      "%s:%d: unknown plan action '%s' (expected eliminate, split or merge)",
                      o.file, o.line, w[0]);
}

/* Reads path and checks it is text: a NUL byte is bad input at its line. */
static int read_text(const char *path, char **data, size_t *len, aa_err *err)
{
    int rc = aa_read_file(path, data, len, err);
    const char *nul;
    if (rc)
        return rc;
    if ((nul = memchr(*data, '\0', *len)) != NULL) {
        int line = 1;
        for (const char *q = *data; q < nul; q++)
            line += *q == '\n';
        free(*data);
        *data = NULL;
        return aa_err_set(err, AA_EINPUT, "%s:%d: NUL byte (not a text file)", path, line);
    }
    return AA_OK;
}

int aa_instr_plan_load(aa_instr_plan *p, const char *path, aa_err *err)
{
    char *data;
    size_t len;
    int rc = read_text(path, &data, &len, err);
    instr_origin o = {NULL, 0};
    char *line;
    if (rc)
        return rc;
    if (!(o.file = plan_file(p, path))) {
        free(data);
        return aa_err_set(err, AA_EENV, "out of memory");
    }
    for (line = data; line && *line && !rc;) {
        char *nl = strchr(line, '\n'), *w[257];
        int n;
        if (nl)
            *nl = '\0';
        o.line++;
        n = split_words(line, w, 257);
        if (n > 256)
            rc = aa_err_set(err, AA_EINPUT, "%s:%d: more than 255 regions on one line", path,
                            o.line);
        else if (n > 0)
            rc = plan_line(p, w, n, o, err);
        line = nl ? nl + 1 : NULL;
    }
    free(data);
    return rc;
}

/* One bottleneck's "region" of analyze --json: an integer id below 2^32. */
static int refine_json_region(aa_instr_plan *p, const aa_jv *b, instr_origin o, int *found,
                              aa_err *err)
{
    const aa_jv *r = aa_jv_get(b, "region");
    char id[24];
    o.line = b->line;
    if (b->type != AA_JV_OBJ)
        return aa_err_set(err, AA_EINPUT, "%s:%d: a bottleneck must be an object, not %s",
                          o.file, o.line, aa_jv_type_name(b));
    if (!r)
        return aa_err_set(err, AA_EINPUT, "%s:%d: a bottleneck without \"region\"", o.file,
                          o.line);
    o.line = r->line;
    if (r->type != AA_JV_NUM || !r->is_u64 || r->u64 > UINT32_MAX ||
        (double)r->u64 != r->num)
        return aa_err_set(err, AA_EINPUT,
                          "%s:%d: \"region\" must be a region id (an integer from 0 to "
                          "4294967295), not %s",
                          o.file, o.line, r->type == AA_JV_NUM ? "this number"
                                                               : aa_jv_type_name(r));
    snprintf(id, sizeof id, "%llu", (unsigned long long)r->u64);
    (*found)++;
    return plan_add(p, 's', id, o, NULL, err);
}

/* analyze --json: every "region" of dissimilarity.bottlenecks,
 * disparity.bottlenecks (SPEC §9) and dynamic.bottlenecks (optional: older
 * analyses have none), and of dissimilarity.suspects. */
static int refine_json(aa_instr_plan *p, const char *data, size_t len, instr_origin o,
                       int *found, aa_err *err)
{
    static const char *const sections[] = {"dissimilarity", "disparity", "dynamic"};
    aa_jv *root;
    int rc = aa_json_parse(data, len, o.file, &root, err), seen = 0;
    if (rc)
        return rc;
    if (root->type != AA_JV_OBJ) {
        rc = aa_err_set(err, AA_EINPUT, "%s:%d: expected the object of analyze --json, not %s",
                        o.file, root->line, aa_jv_type_name(root));
        goto out;
    }
    for (size_t s = 0; s < 3 && !rc; s++) {
        const aa_jv *sec = aa_jv_get(root, sections[s]), *bs;
        if (!sec)
            continue;
        seen = 1;
        bs = aa_jv_get(sec, "bottlenecks");
        if (!bs || bs->type != AA_JV_ARR) {
            rc = aa_err_set(err, AA_EINPUT, "%s:%d: \"%s\" has no \"bottlenecks\" array",
                            o.file, sec->line, sections[s]);
            break;
        }
        for (size_t i = 0; i < bs->n && !rc; i++)
            rc = refine_json_region(p, &bs->items[i], o, found, err);
        /* where the processes differ most without a finding (optional) */
        bs = aa_jv_get(sec, "suspects");
        if (!rc && bs && bs->type != AA_JV_ARR)
            rc = aa_err_set(err, AA_EINPUT, "%s:%d: \"suspects\" must be an array, not %s",
                            o.file, bs->line, aa_jv_type_name(bs));
        for (size_t i = 0; !rc && bs && i < bs->n; i++)
            rc = refine_json_region(p, &bs->items[i], o, found, err);
    }
    if (!rc && !seen)
        rc = aa_err_set(err, AA_EINPUT,
                        "%s:%d: no \"dissimilarity\" or \"disparity\": not the JSON of "
                        "analyze --json",
                        o.file, root->line);
out:
    aa_jv_free(root);
    return rc;
}

/* XML: the region="ID" attributes of every element. */
static int refine_xml_walk(aa_instr_plan *p, xmlNode *n, instr_origin o, int *found,
                           aa_err *err)
{
    int rc = AA_OK;
    for (; n && !rc; n = n->next) {
        xmlChar *v;
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if ((v = xmlGetProp(n, (const xmlChar *)"region")) != NULL) {
            uint32_t id;
            o.line = (int)xmlGetLineNo(n);
            if (aa_parse_u32((const char *)v, &id))
                rc = aa_err_set(err, AA_EINPUT,
                                "%s:%d: region=\"%.40s\" is not a region id (an integer "
                                "from 0 to 4294967295)",
                                o.file, o.line, (const char *)v);
            else {
                (*found)++;
                rc = plan_add(p, 's', (const char *)v, o, NULL, err);
            }
            xmlFree(v);
        }
        if (!rc)
            rc = refine_xml_walk(p, n->children, o, found, err);
    }
    return rc;
}

static int refine_xml(aa_instr_plan *p, const char *data, size_t len, instr_origin o,
                      int *found, aa_err *err)
{
    xmlDoc *doc = xmlReadMemory(data, (int)len, o.file, NULL,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    int rc;
    if (!doc) {
        const xmlError *e = xmlGetLastError();
        char msg[200];
        snprintf(msg, sizeof msg, "%s", e && e->message ? e->message : "malformed XML");
        msg[strcspn(msg, "\n")] = '\0';
        return aa_err_set(err, AA_EINPUT, "%s:%d: %s", o.file, e ? e->line : 1, msg);
    }
    rc = refine_xml_walk(p, xmlDocGetRootElement(doc), o, found, err);
    xmlFreeDoc(doc);
    return rc;
}

/* A plain list: one region id or name per line, # comments. */
static int refine_list(aa_instr_plan *p, char *data, instr_origin o, int *found, aa_err *err)
{
    int rc = AA_OK;
    for (char *line = data; line && *line && !rc;) {
        char *nl = strchr(line, '\n'), *w[2];
        int n;
        if (nl)
            *nl = '\0';
        o.line++;
        n = split_words(line, w, 2);
        if (n == 2)
            rc = aa_err_set(err, AA_EINPUT, "%s:%d: one region id or name per line, got '%s %s'",
                            o.file, o.line, w[0], w[1]);
        else if (n == 1) {
            rc = plan_add(p, 's', w[0], o, NULL, err);
            (*found)++;
        }
        line = nl ? nl + 1 : NULL;
    }
    return rc;
}

int aa_instr_plan_load_refine(aa_instr_plan *p, const char *path, aa_err *err)
{
    char *data;
    size_t len;
    int rc = read_text(path, &data, &len, err), found = 0;
    instr_origin o = {NULL, 0};
    const char *q;
    if (rc)
        return rc;
    if (!(o.file = plan_file(p, path))) {
        free(data);
        return aa_err_set(err, AA_EENV, "out of memory");
    }
    q = data;
    while (*q && isspace((unsigned char)*q))
        q++;
    if (*q == '{' || *q == '[')
        rc = refine_json(p, data, len, o, &found, err);
    else if (*q == '<')
        rc = refine_xml(p, data, len, o, &found, err);
    else
        rc = refine_list(p, data, o, &found, err);
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
        if (dir.data && !dir.failed && access(dir.data, R_OK) != 0)
            memcpy(dir.data + dir.len - 4, ".aab", 4); /* the binary form (big runs) */
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

int aa_instr_plan_refine_ids(aa_instr_plan *p, const char *origin, const uint32_t *ids,
                             size_t n, aa_err *err)
{
    instr_origin o = {NULL, 0};
    char id[24];
    int rc = AA_OK;
    if (!(o.file = plan_file(p, origin)))
        return aa_err_set(err, AA_EENV, "out of memory");
    if (n == 0)
        return aa_err_set(err, AA_EINPUT, "%s: no critical regions to refine", origin);
    for (size_t i = 0; i < n && !rc; i++) {
        snprintf(id, sizeof id, "%u", (unsigned)ids[i]);
        o.line = (int)i + 1;
        rc = plan_add(p, 's', id, o, NULL, err);
    }
    return rc;
}
