/*
 * convert_out.c - the converters' buffered writer, hand-made number formatting, JSON
 * string escaping and the per-function name cache.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "convert.h"
#include "u64_map.h"

#define CV_OUT_BUFFER (1u << 20)

void cv_out_init(cv_out *o, FILE *file)
{
    o->file = file;
    o->cap = CV_OUT_BUFFER;
    o->buf = malloc(o->cap);
    o->len = 0;
    o->failed = o->buf == NULL;
    o->err = o->buf ? 0 : ENOMEM;
    if (!o->buf)
        o->cap = 0;
}

void cv_out_flush(cv_out *o)
{
    if (o->len && fwrite(o->buf, 1, o->len, o->file) != o->len && !o->failed) {
        o->failed = true;
        o->err = errno;
    }
    o->len = 0;
}

void cv_out_grow(cv_out *o, size_t need)
{
    cv_out_flush(o);
    if (o->cap < need) {           /* one piece larger than the whole buffer */
        char *nb = realloc(o->buf, need);
        if (!nb) {
            fprintf(stderr, "flightrec convert: out of memory\n");
            exit(1);
        }
        o->buf = nb;
        o->cap = need;
    }
}

int cv_out_finish(cv_out *o)
{
    cv_out_flush(o);
    if ((fflush(o->file) != 0 || ferror(o->file)) && !o->failed) {
        o->failed = true;
        o->err = errno;
    }
    free(o->buf);
    o->buf = NULL;
    o->cap = 0;
    return o->failed ? -(o->err ? o->err : EIO) : 0;
}

/* "00" .. "99": two digits per division. */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

void cv_u64(cv_out *o, uint64_t v)
{
    char tmp[20];
    char *p = tmp + 20;
    while (v >= 100) {
        p -= 2;
        memcpy(p, digit_pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, digit_pairs + 2 * v, 2);
    } else {
        *--p = (char)('0' + v);
    }
    cv_put(o, p, (size_t)(tmp + 20 - p));
}

void cv_u64_pad(cv_out *o, uint64_t v, unsigned width, char pad)
{
    unsigned digits = 1;
    for (uint64_t x = v; x >= 10; x /= 10)
        digits++;
    for (; digits < width; digits++)
        cv_putc(o, pad);
    cv_u64(o, v);
}

void cv_i64(cv_out *o, int64_t v)
{
    if (v < 0) {
        cv_putc(o, '-');
        cv_u64(o, (uint64_t)0 - (uint64_t)v);
    } else {
        cv_u64(o, (uint64_t)v);
    }
}

void cv_usec3(cv_out *o, int64_t sns)
{
    uint64_t ns = (uint64_t)sns;
    if (sns < 0) {
        cv_putc(o, '-');
        ns = (uint64_t)0 - ns;
    }
    uint64_t frac = ns % 1000;
    char f[4] = {'.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10), (char)('0' + frac % 10)};
    cv_u64(o, ns / 1000);
    cv_put(o, f, 4);
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if it is not valid. */
static size_t utf8_sequence(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
    else return 0;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

void cv_json_string(cv_out *o, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    cv_putc(o, '"');
    size_t run = 0;   /* bytes copied as they are, written in one piece */
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x7F) {
            i++;
            run++;
            continue;
        }
        size_t seq = c >= 0x80 ? utf8_sequence(p + i, n - i) : 0;
        /* DEL and the C1 controls (U+0080..U+009F, 0xC2 0x80..0x9F) escaped too: a
         * terminal that shows the file must not act on them (docs/THREAT_MODEL.md) */
        if (seq == 2 && c == 0xC2 && p[i + 1] <= 0x9F) {
            cv_put(o, (const char *)p + i - run, run);
            run = 0;
            char e[6] = {'\\', 'u', '0', '0', hex[p[i + 1] >> 4], hex[p[i + 1] & 15]};
            cv_put(o, e, 6);
            i += 2;
            continue;
        }
        if (seq) {
            i += seq;
            run += seq;
            continue;
        }
        cv_put(o, (const char *)p + i - run, run);
        run = 0;
        switch (c) {
        case '"': CV_LIT(o, "\\\""); break;
        case '\\': CV_LIT(o, "\\\\"); break;
        case '\n': CV_LIT(o, "\\n"); break;
        case '\t': CV_LIT(o, "\\t"); break;
        case '\r': CV_LIT(o, "\\r"); break;
        default:
            if (c < 0x20 || c == 0x7F) {
                char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
                cv_put(o, e, 6);
            } else {
                CV_LIT(o, "\\ufffd");   /* a byte that is not UTF-8 */
            }
        }
        i++;
    }
    cv_put(o, (const char *)p + n - run, run);
    cv_putc(o, '"');
}

void cv_hex(cv_out *o, const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        char h[2] = {hex[p[i] >> 4], hex[p[i] & 15]};
        cv_put(o, h, 2);
    }
}

/* ------------------------------------------------------------------ name cache */

void cv_names_init(cv_names *c, fr_symbols *symbols, char *(*format)(const char *, void *), void *ctx)
{
    memset(c, 0, sizeof *c);
    c->symbols = symbols;
    c->format = format;
    c->ctx = ctx;
}

static void names_oom(void *p)
{
    if (!p) {
        fprintf(stderr, "flightrec convert: out of memory\n");
        exit(1);
    }
}

/* The name to format: from the symbols while the trace is open, else "#ID" (as the
 * symbols name an id they do not know). */
static char *names_make(cv_names *c, uint32_t id)
{
    char fallback[16];
    snprintf(fallback, sizeof fallback, "#%u", id);
    char *s = c->format(c->symbols ? fr_symbols_name(c->symbols, id) : fallback, c->ctx);
    names_oom(s);
    return s;
}

const char *cv_names_get_slow(cv_names *c, uint32_t id)
{
    if (id >= CV_IDS_CACHED) {   /* beyond: a hash map */
        if (!c->big_index) {
            names_oom(c->big_index = malloc(sizeof(fr_u64_map)));
            fr_u64_map_init(c->big_index);
        }
        uint32_t i = fr_u64_map_get(c->big_index, id);
        if (i != FR_U64_MAP_NONE)
            return c->big[i];
        if (c->n_big == c->cap_big) {
            c->cap_big = c->cap_big ? 2 * c->cap_big : 16;
            names_oom(c->big = realloc(c->big, c->cap_big * sizeof *c->big));
        }
        c->big[c->n_big] = names_make(c, id);
        fr_u64_map_put(c->big_index, id, (uint32_t)c->n_big);
        return c->big[c->n_big++];
    }
    if (id >= c->n) {
        size_t n = c->n ? c->n : 256;
        while (n <= id)
            n *= 2;
        char **nb = realloc(c->by_id, n * sizeof *nb);
        names_oom(nb);
        memset(nb + c->n, 0, (n - c->n) * sizeof *nb);
        c->by_id = nb;
        c->n = n;
    }
    c->by_id[id] = names_make(c, id);
    return c->by_id[id];
}

void cv_names_free(cv_names *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->by_id[i]);
    free(c->by_id);
    for (size_t i = 0; i < c->n_big; i++)
        free(c->big[i]);
    free(c->big);
    if (c->big_index) {
        fr_u64_map_free(c->big_index);
        free(c->big_index);
    }
    memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------------ output file */

int cv_open_output(cv_job *job)
{
    if (job->out)
        return 0;
    if (!job->out_path || !strcmp(job->out_path, "-")) {
        job->out = stdout;
        job->out_path = "<stdout>";
        return 0;
    }
    if (fr_cli_check_output("convert", job->out_path))   /* -o naming an input */
        return FR_EXIT_BAD_INPUT;
    job->out = cv_fopen_output(job->out_path);
    if (!job->out)   /* the environment, not the command line, is at fault: exit 1 */
        return fr_cli_input_error("convert", "cannot create %s: %s", job->out_path, strerror(errno));
    return 0;
}

FILE *cv_fopen_output(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

int cv_fclose_output(FILE *f)
{
    struct stat st;
    int rc = fflush(f);
    off_t end = ftello(f);
    if (rc == 0 && end >= 0 && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_size > end && ftruncate(fileno(f), end) != 0)
        rc = EOF;
    int e = errno;
    if (fclose(f) != 0)
        return EOF;
    if (rc) {
        errno = e;
        return EOF;
    }
    return 0;
}
