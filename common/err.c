/*
 * common/err.c -- error values of the libraries: a status code and a
 * message, filled by the function that failed and read by cli/.
 */
#include "common/aa_common.h"

#include <stdio.h>
#include <string.h>

int aa_err_setv(aa_err *err, int code, const char *fmt, va_list ap)
{
    if (err) {
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return code;
}

int aa_err_set(aa_err *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    aa_err_setv(err, code, fmt, ap);
    va_end(ap);
    return code;
}

void aa_err_prefix(aa_err *err, const char *fmt, ...)
{
    char pre[512], old[sizeof err->msg];
    va_list ap;
    if (!err)
        return;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    size_t n;
    memcpy(old, err->msg, sizeof old);
    n = strlen(pre);
    if (n > sizeof err->msg - 3)
        n = sizeof err->msg - 3;
    memcpy(err->msg, pre, n);
    memcpy(err->msg + n, ": ", 2);
    n += 2;
    memcpy(err->msg + n, old, sizeof err->msg - n - 1);
    err->msg[sizeof err->msg - 1] = '\0';
}

void aa_err_clear(aa_err *err)
{
    if (err) {
        err->code = AA_OK;
        err->msg[0] = '\0';
    }
}
