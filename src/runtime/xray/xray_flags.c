/*
 * xray_flags.c - XRAY_OPTIONS and the per-mode option strings, in compiler-rt's syntax and
 * with compiler-rt's messages (its sanitizer flag parser), so that scripts grepping for
 * them keep working. Differences, both on purpose (docs/XRAY_COMPAT.md):
 *  - unknown flags are reported at every verbosity (compiler-rt: only at verbosity >= 1),
 *    so that a typo does not silently leave tracing off;
 *  - a malformed string is reported with compiler-rt's lines and then not used at all,
 *    where compiler-rt ends the program with status 1: a tracer must not kill its host.
 * Runs at start-up and at mode init, never on a hot path.
 */
#define _GNU_SOURCE
#include "xray/xray_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

FR_HIDDEN struct xr_flags xr_flags = {
    .xray_logfile_base = "xray-log.",
    .xray_naive_log_func_duration_threshold_us = 5,
    .xray_naive_log_max_stack_depth = 64,
    .xray_naive_log_thread_buffer_size = 1024,
    .xray_fdr_log_func_duration_threshold_us = 5,
    .xray_fdr_log_grace_period_ms = 100,
};

static void write_stderr(const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(STDERR_FILENO, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        buf += n;
        len -= (size_t)n;
    }
}

static void vprint(int prefix, const char *fmt, va_list ap)
{
    char msg[2048];
    int n = 0;
    if (prefix)
        n = snprintf(msg, sizeof msg, "==%d==", (int)getpid());
    int m = vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    if (m < 0)
        return;
    size_t len = (size_t)n + (size_t)m;
    write_stderr(msg, len < sizeof msg ? len : sizeof msg - 1);
}

void xr_report(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint(1, fmt, ap);
    va_end(ap);
}

void xr_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint(0, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------- the parser */

static int is_separator(char c)
{
    return c == ' ' || c == ',' || c == ':' || c == '\n' || c == '\t' || c == '\r';
}

static int parse_value(const struct xr_flag *f, const char *v)
{
    switch (f->type) {
    case XR_FLAG_BOOL:
        if (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes")) {
            *(bool *)f->value = true;
            return 0;
        }
        if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no")) {
            *(bool *)f->value = false;
            return 0;
        }
        xr_printf("ERROR: Invalid value for bool option: '%s'\n", v);
        return -1;
    case XR_FLAG_INT: {
        char *end;
        errno = 0;
        long long x = strtoll(v, &end, 10);
        if (!*v || *end || errno || x < -2147483647LL - 1 || x > 2147483647LL) {
            xr_printf("ERROR: Invalid value for int option: '%s'\n", v);
            return -1;
        }
        *(int *)f->value = (int)x;
        return 0;
    }
    case XR_FLAG_STR:
        if (strlen(v) >= f->cap) {
            xr_printf("ERROR: Invalid value for string option: '%s' (longer than %zu bytes)\n",
                      v, f->cap - 1);
            return -1;
        }
        strcpy((char *)f->value, v);
        return 0;
    }
    return -1;
}

#define MAX_UNKNOWN 20

int xr_parse_flags(const char *text, const char *origin, const struct xr_flag *table, size_t n,
                   const char *const *pass, char *passout, size_t passcap)
{
    if (!text)
        return 0;
    /* Parse into copies first: a malformed string changes nothing. */
    union { bool b; int i; } scalars[32];
    char *strings[32] = {0};
    struct xr_flag local[32];
    if (n > 32)
        n = 32;
    for (size_t i = 0; i < n; i++) {
        local[i] = table[i];
        if (table[i].type == XR_FLAG_STR) {
            strings[i] = malloc(table[i].cap);
            if (!strings[i])
                goto fail_nomem;
            strcpy(strings[i], (const char *)table[i].value);
            local[i].value = strings[i];
        } else if (table[i].type == XR_FLAG_BOOL) {
            scalars[i].b = *(bool *)table[i].value;
            local[i].value = &scalars[i].b;
        } else {
            scalars[i].i = *(int *)table[i].value;
            local[i].value = &scalars[i].i;
        }
    }
    size_t passlen = passout ? strlen(passout) : 0;
    char unknown[MAX_UNKNOWN][64];
    int nunknown = 0;
    int bad = 0;
    const char *p = text;
    char value[4096];
    while (!bad) {
        while (is_separator(*p))
            p++;
        if (!*p)
            break;
        const char *name = p;
        while (*p && *p != '=' && !is_separator(*p))
            p++;
        if (*p != '=') {
            xr_printf("SanitizerTool: ERROR: expected '=' in %s\n", origin);
            bad = 1;
            break;
        }
        size_t nlen = (size_t)(p - name);
        p++;
        size_t vlen = 0;
        if (*p == '"' || *p == '\'') {
            char q = *p++;
            const char *v = p;
            while (*p && *p != q)
                p++;
            if (*p != q) {
                xr_printf("SanitizerTool: ERROR: unterminated string in %s\n", origin);
                bad = 1;
                break;
            }
            vlen = (size_t)(p - v);
            if (vlen >= sizeof value)
                vlen = sizeof value - 1;
            memcpy(value, v, vlen);
            p++;
        } else {
            const char *v = p;
            while (*p && !is_separator(*p))
                p++;
            vlen = (size_t)(p - v);
            if (vlen >= sizeof value)
                vlen = sizeof value - 1;
            memcpy(value, v, vlen);
        }
        value[vlen] = 0;
        size_t i = 0;
        while (i < n && !(strlen(local[i].name) == nlen && !memcmp(local[i].name, name, nlen)))
            i++;
        if (i < n) {
            if (parse_value(&local[i], value) < 0) {
                xr_printf("SanitizerTool: ERROR: Flag parsing failed.\n");
                bad = 1;
            }
            continue;
        }
        int passed = 0;
        for (size_t k = 0; pass && pass[k] && !passed; k++)
            if (strlen(pass[k]) == nlen && !memcmp(pass[k], name, nlen)) {
                int w = snprintf(passout + passlen, passcap - passlen, "%s%.*s=%s",
                                 passlen ? " " : "", (int)nlen, name, value);
                if (w < 0 || (size_t)w >= passcap - passlen) {
                    xr_printf("SanitizerTool: ERROR: %s too long\n", origin);
                    bad = 1;
                }
                passlen += (size_t)(w > 0 ? w : 0);
                passed = 1;
            }
        if (!passed && nunknown < MAX_UNKNOWN) {
            snprintf(unknown[nunknown], sizeof unknown[0], "%.*s", (int)nlen, name);
            nunknown++;
        }
    }
    if (nunknown && !bad) {
        xr_printf("WARNING: found %d unrecognized flag(s):\n", nunknown);
        for (int i = 0; i < nunknown; i++)
            xr_printf("    %s\n", unknown[i]);
    }
    if (bad) {
        xr_report("flightrec: %s not used (compiler-rt would end the program with status 1 "
                  "here)\n", origin);
    } else {
        for (size_t i = 0; i < n; i++) {
            if (table[i].type == XR_FLAG_STR)
                strcpy((char *)table[i].value, strings[i]);
            else if (table[i].type == XR_FLAG_BOOL)
                *(bool *)table[i].value = scalars[i].b;
            else
                *(int *)table[i].value = scalars[i].i;
        }
    }
    for (size_t i = 0; i < n; i++)
        free(strings[i]);
    return bad ? -1 : 0;
fail_nomem:
    for (size_t i = 0; i < n; i++)
        free(strings[i]);
    xr_report("flightrec: %s not used: out of memory\n", origin);
    return -1;
}

/* ---------------------------------------------------------------- XRAY_OPTIONS */

#define FLAG(type, name) { #name, type, &xr_flags.name, sizeof xr_flags.name }

void xr_flags_init(void)
{
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        return;
    static const struct xr_flag table[] = {
        FLAG(XR_FLAG_BOOL, patch_premain),
        FLAG(XR_FLAG_STR, xray_logfile_base),
        FLAG(XR_FLAG_STR, xray_mode),
        FLAG(XR_FLAG_BOOL, xray_naive_log),
        FLAG(XR_FLAG_INT, xray_naive_log_func_duration_threshold_us),
        FLAG(XR_FLAG_INT, xray_naive_log_max_stack_depth),
        FLAG(XR_FLAG_INT, xray_naive_log_thread_buffer_size),
        FLAG(XR_FLAG_BOOL, xray_fdr_log),
        FLAG(XR_FLAG_INT, xray_fdr_log_func_duration_threshold_us),
        FLAG(XR_FLAG_INT, xray_fdr_log_grace_period_us),
        FLAG(XR_FLAG_INT, xray_fdr_log_grace_period_ms),
        FLAG(XR_FLAG_INT, verbosity),
    };
    /* secure_getenv: in a setuid program the environment must not choose files. */
    xr_parse_flags(secure_getenv("XRAY_OPTIONS"), "XRAY_OPTIONS", table,
                   sizeof table / sizeof table[0], NULL, NULL, 0);
}
