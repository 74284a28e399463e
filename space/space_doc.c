/*
 * space/space_doc.c -- the experiment document kept with every execution
 * stored by aa_space_add (schema 3, table experiment_documents): the
 * experiment's XML text, zlib-compressed and base64-encoded so that SQLite
 * and PostgreSQL keep it as plain text.  With it a stored execution can be
 * analysed, reported and compared after its experiment directory is gone
 * (aa_space_load_experiment); the results and findings tables stay the
 * operators' view of the same run.
 */
#include "space/sp_internal.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define OPS(s) ((s)->db->ops)

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *base64_encode(const unsigned char *p, size_t n)
{
    char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
    size_t i;
    if (!out)
        return NULL;
    for (i = 0; i + 2 < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
        *o++ = b64[v >> 18 & 63];
        *o++ = b64[v >> 12 & 63];
        *o++ = b64[v >> 6 & 63];
        *o++ = b64[v & 63];
    }
    if (i < n) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0);
        *o++ = b64[v >> 18 & 63];
        *o++ = b64[v >> 12 & 63];
        *o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
        *o++ = '=';
    }
    *o = '\0';
    return out;
}

static int b64_value(char c)
{
    const char *q = c ? strchr(b64, c) : NULL;
    return q ? (int)(q - b64) : -1;
}

/* -1 on a character outside the alphabet or a bad length. */
static long base64_decode(const char *s, unsigned char **out)
{
    size_t n = strlen(s), i, k = 0;
    unsigned char *p;
    if (n % 4)
        return -1;
    if (!(p = malloc(n / 4 * 3 + 1)))
        return -1;
    for (i = 0; i < n; i += 4) {
        int a = b64_value(s[i]), b = b64_value(s[i + 1]);
        int c = s[i + 2] == '=' ? 0 : b64_value(s[i + 2]);
        int d = s[i + 3] == '=' ? 0 : b64_value(s[i + 3]);
        unsigned v;
        if (a < 0 || b < 0 || c < 0 || d < 0) {
            free(p);
            return -1;
        }
        v = (unsigned)a << 18 | (unsigned)b << 12 | (unsigned)c << 6 | (unsigned)d;
        p[k++] = (unsigned char)(v >> 16);
        if (s[i + 2] != '=')
            p[k++] = (unsigned char)(v >> 8);
        if (s[i + 3] != '=')
            p[k++] = (unsigned char)v;
    }
    *out = p;
    return (long)k;
}

int sp_doc_encode(const aa_experiment *e, char **out, size_t *xml_size, aa_err *err)
{
    aa_buf xml;
    unsigned char *z = NULL;
    uLongf zn;
    int rc;
    *out = NULL;
    aa_buf_init(&xml);
    if ((rc = aa_experiment_write_buf(e, &xml, err)) != AA_OK) {
        aa_buf_free(&xml);
        return rc;
    }
    zn = compressBound((uLong)xml.len);
    if (!(z = malloc(zn)) || compress2(z, &zn, (const Bytef *)xml.data, (uLong)xml.len, 6) != Z_OK ||
        !(*out = base64_encode(z, zn)))
        rc = aa_err_set(err, AA_EENV, "out of memory encoding the experiment document");
    *xml_size = xml.len;
    free(z);
    aa_buf_free(&xml);
    return rc;
}

int aa_space_load_experiment(aa_space *s, long long eid, aa_experiment **e, aa_err *err)
{
    sp_stmt *st;
    char *body = NULL, *enc = NULL, name[64];
    long long size = 0, nexec = 0, bsz = 0;
    unsigned char *z = NULL;
    char *xml = NULL;
    long zn;
    uLongf xn;
    int rc, r;
    char b[24];
    const char *p[1] = {b};
    *e = NULL;
    snprintf(b, sizeof b, "%lld", eid);
    if ((rc = sp_query_int(s->db, "SELECT COUNT(*) FROM executions WHERE eid = ?", p, 1, 0, &nexec,
                           err)) != AA_OK)
        return rc;
    if (!nexec)
        return aa_err_set(err, AA_EINPUT, "unknown execution %lld", eid);
    if ((rc = OPS(s)->prepare(s->db,
                              "SELECT encoding, size, body FROM experiment_documents WHERE eid = ?",
                              &st, err)) != AA_OK)
        return rc;
    OPS(s)->bind_int(st, 1, eid);
    r = OPS(s)->step(st, err);
    if (r == 1) {
        enc = aa_strdup(OPS(s)->col_text(st, 0));
        size = OPS(s)->col_int(st, 1);
        body = aa_strdup(OPS(s)->col_text(st, 2));
    }
    OPS(s)->finalize(st);
    if (r < 0)
        return err->code ? err->code : AA_EENV;
    if (r == 0)
        return aa_err_set(err, AA_EINPUT,
                          "execution %lld has no stored experiment (imported from the text "
                          "format, stored by an older version, or a run of more than %d "
                          "processes stored compact without --full): analyse its experiment "
                          "directory instead", eid, AA_SPACE_COMPACT_MIN);
    snprintf(name, sizeof name, "execution %lld", eid);
    if (!enc || !body || strcmp(enc, SP_DOC_ENCODING) != 0 || size < 0) {
        rc = aa_err_set(err, AA_EINPUT, "%s: stored experiment in unknown encoding '%s'", name,
                        enc ? enc : "?");
        goto out;
    }
    zn = base64_decode(body, &z);
    bsz = size;
    xn = (uLongf)bsz;
    if (zn < 0 || !(xml = malloc((size_t)bsz + 1)) ||
        uncompress((Bytef *)xml, &xn, z, (uLong)zn) != Z_OK || xn != (uLongf)bsz) {
        rc = aa_err_set(err, AA_EINPUT, "%s: the stored experiment is damaged", name);
        goto out;
    }
    rc = aa_experiment_read_memory(xml, (size_t)xn, name, e, err);
out:
    free(enc);
    free(body);
    free(z);
    free(xml);
    return rc;
}
