/*
 * space/space_prune.c -- prunes, the resources marked irrelevant for an
 * application (Karavanic's history-guided diagnosis, seed chapter 5):
 * adding one (checked against the stored executions of the application, and
 * given the stable region id the resource had there), removing one and
 * listing them.  The engine turns them, with the stored findings and the
 * learned noise, into the analysis' history input.
 */
#include "space/sp_internal.h"

#include <stdlib.h>
#include <string.h>

#define OPS(s) ((s)->db->ops)

static int fail_rc(aa_err *err) { return err && err->code ? err->code : AA_EENV; }

/* the executions of an application: its name, or its configuration name */
#define APP_EIDS                                                                               \
    "SELECT e.eid FROM executions e JOIN applications a ON a.id = e.app WHERE a.name = ?"      \
    " UNION SELECT eid FROM execution_attrs WHERE name = 'name' AND value = ?"

typedef struct prune_arg {
    const char *application, *resource, *reason;
    int removed;
} prune_arg;

static int prune_add_tx(aa_space *s, void *arg, aa_err *err)
{
    prune_arg *a = arg;
    const char *p2[2] = {a->application, a->application};
    const char *p3[3] = {a->resource, a->application, a->application};
    long long n, region = -1;
    char now[32];
    sp_stmt *st;
    int rc, r;
    if ((rc = sp_query_int(s->db, "SELECT COUNT(*) FROM (" APP_EIDS ") x", p2, 2, 0, &n, err)))
        return rc;
    if (!n)
        return aa_err_set(err, AA_EINPUT, "no stored execution of '%s' (application or --name)",
                          a->application);
    rc = sp_query_int(s->db,
                      "SELECT COUNT(*) FROM execution_resources xr JOIN resources r ON"
                      " r.id = xr.resource WHERE r.path = ? AND xr.eid IN (" APP_EIDS ")",
                      p3, 3, 0, &n, err);
    if (rc)
        return rc;
    if (!n)
        return aa_err_set(err, AA_EINPUT, "resource '%s' is in no stored execution of '%s'",
                          a->resource, a->application);
    rc = sp_query_int(s->db,
                      "SELECT xr.region FROM execution_regions xr JOIN resources r ON"
                      " r.id = xr.resource WHERE r.path = ? AND xr.eid IN (" APP_EIDS ")"
                      " ORDER BY xr.eid DESC LIMIT 1",
                      p3, 3, -1, &region, err);
    if (rc)
        return rc;
    {
        const char *pk[2] = {a->application, a->resource};
        rc = sp_query_int(s->db, "SELECT COUNT(*) FROM prunes WHERE application = ? AND resource = ?",
                          pk, 2, 0, &n, err);
        if (rc)
            return rc;
        if (n)
            return aa_err_set(err, AA_EINPUT, "'%s' is pruned for '%s' already", a->resource,
                              a->application);
    }
    rc = OPS(s)->prepare(s->db,
                         "INSERT INTO prunes(application, resource, region, reason, added)"
                         " VALUES(?, ?, ?, ?, ?)",
                         &st, err);
    if (rc)
        return rc;
    sp_now_iso(now);
    OPS(s)->bind_text(st, 1, a->application);
    OPS(s)->bind_text(st, 2, a->resource);
    if (region >= 0)
        OPS(s)->bind_int(st, 3, region);
    else
        OPS(s)->bind_text(st, 3, NULL);
    OPS(s)->bind_text(st, 4, a->reason ? a->reason : "");
    OPS(s)->bind_text(st, 5, now);
    r = OPS(s)->step(st, err);
    OPS(s)->finalize(st);
    return r < 0 ? fail_rc(err) : AA_OK;
}

static int under_code(const char *path)
{
    return sp_path_valid(path) && strncmp(path, "/Code", 5) == 0 &&
           (path[5] == 0 || path[5] == '/');
}

int aa_space_prune_add(aa_space *s, const char *application, const char *resource,
                       const char *reason, aa_err *err)
{
    prune_arg a = {application, resource, reason, 0};
    if (!application || !*application)
        return aa_err_set(err, AA_EUSAGE, "prune: an application name is needed");
    if (!resource || !under_code(resource))
        return aa_err_set(err, AA_EUSAGE,
                          "prune %s: a code resource path ('/Code/...') without empty components",
                          resource ? resource : "");
    if (reason && (strchr(reason, '\n') || strchr(reason, '\t')))
        return aa_err_set(err, AA_EUSAGE, "prune: the reason is one line");
    return sp_write_tx(s, prune_add_tx, &a, err);
}

static int prune_remove_tx(aa_space *s, void *arg, aa_err *err)
{
    prune_arg *a = arg;
    const char *pk[2] = {a->application, a->resource};
    long long n;
    sp_stmt *st;
    int rc, r;
    rc = sp_query_int(s->db, "SELECT COUNT(*) FROM prunes WHERE application = ? AND resource = ?",
                      pk, 2, 0, &n, err);
    if (rc)
        return rc;
    if (!n)
        return aa_err_set(err, AA_EINPUT, "'%s' is not pruned for '%s'", a->resource,
                          a->application);
    rc = OPS(s)->prepare(s->db, "DELETE FROM prunes WHERE application = ? AND resource = ?", &st,
                         err);
    if (rc)
        return rc;
    OPS(s)->bind_text(st, 1, a->application);
    OPS(s)->bind_text(st, 2, a->resource);
    r = OPS(s)->step(st, err);
    OPS(s)->finalize(st);
    return r < 0 ? fail_rc(err) : AA_OK;
}

int aa_space_prune_remove(aa_space *s, const char *application, const char *resource,
                          aa_err *err)
{
    prune_arg a = {application, resource, NULL, 0};
    if (!application || !resource)
        return aa_err_set(err, AA_EUSAGE, "prune --remove: an application and a resource");
    return sp_write_tx(s, prune_remove_tx, &a, err);
}

void aa_space_prunes_free(aa_space_prune *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        free(v[i].application);
        free(v[i].resource);
        free(v[i].reason);
        free(v[i].added);
    }
    free(v);
}

static int cmp_prune(const void *x, const void *y)
{
    const aa_space_prune *a = x, *b = y;
    int c = strcmp(a->application, b->application);
    return c ? c : strcmp(a->resource, b->resource);
}

int aa_space_prunes(aa_space *s, const char *application, aa_space_prune **out, size_t *n,
                    aa_err *err)
{
    sp_stmt *st;
    size_t cap = 0;
    int rc, r;
    *out = NULL;
    *n = 0;
    rc = OPS(s)->prepare(s->db,
                         application ? "SELECT application, resource, region, reason, added FROM"
                                       " prunes WHERE application = ?"
                                     : "SELECT application, resource, region, reason, added FROM"
                                       " prunes",
                         &st, err);
    if (rc)
        return rc;
    if (application)
        OPS(s)->bind_text(st, 1, application);
    while ((r = OPS(s)->step(st, err)) == 1) {
        aa_space_prune *p;
        if (*n == cap) {
            aa_space_prune *q = realloc(*out, (cap = cap ? cap * 2 : 8) * sizeof *q);
            if (!q) {
                r = -1;
                aa_err_set(err, AA_EENV, "out of memory");
                break;
            }
            *out = q;
        }
        p = &(*out)[(*n)++];
        p->application = aa_strdup(OPS(s)->col_text(st, 0));
        p->resource = aa_strdup(OPS(s)->col_text(st, 1));
        p->region_id = OPS(s)->col_null(st, 2) ? -1 : OPS(s)->col_int(st, 2);
        p->reason = aa_strdup(OPS(s)->col_text(st, 3));
        p->added = aa_strdup(OPS(s)->col_text(st, 4));
    }
    OPS(s)->finalize(st);
    if (r < 0) {
        aa_space_prunes_free(*out, *n);
        *out = NULL;
        *n = 0;
        return fail_rc(err);
    }
    if (*n > 1)
        qsort(*out, *n, sizeof **out, cmp_prune);
    return AA_OK;
}
