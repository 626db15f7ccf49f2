/*
 * options.c - parsing "key=value key=value,key=value" option strings.
 *
 * Runs at init only (never on a hot path), but still avoids malloc and stdio so that it
 * can run from the start-up constructor of any program: messages go out with write(2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/options.h"
#include "core/clock.h"
#include "arch/port.h"   /* FR_ARCH_JUMP_SLOT_RELOC: libcalls= possible on this CPU */
#include "events/event_spec.h"
#include "functrace/name_pattern.h"
#include "fr_format.h"

#define DEFAULT_BUFFER_SIZE 4096u
#define DEFAULT_BUFFERS     4096u
#define MIN_BUFFER_SIZE     1024u
#define MAX_BUFFER_SIZE     (1ull << 30)

void fr_options_defaults(struct fr_options *o)
{
    memset(o, 0, sizeof *o);
    strcpy(o->output, "flightrec-%p.fr");
    o->buffer_size = DEFAULT_BUFFER_SIZE;
    o->buffers = DEFAULT_BUFFERS;
    o->policy = FR_POLICY_OVERWRITE;
    strcpy(o->patch, "all");
    o->clock = FR_CLOCK_AUTO;
    o->file_mode = 0600;
}

/* What a bad value of these keys should have been, said after it. */
static const char *value_hint(const char *key, size_t keylen)
{
    static const struct { const char *key, *hint; } hints[] = {
        {"start", "1 or 0 (yes/no, true/false)"},
        {"events", "PROVIDER[:LEVEL[:KEYWORDS]] separated by ';' or ',', LEVEL 1 (critical) "
                   "to 5 (verbose) or * (every level)"},
#ifndef FR_ARCH_JUMP_SLOT_RELOC
        {"libcalls", "this CPU's port has no library-call stubs (src/runtime/arch/port.h): "
                     "library calls cannot be recorded here"},
#endif
    };
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++)
        if (strlen(hints[i].key) == keylen && !memcmp(hints[i].key, key, keylen))
            return hints[i].hint;
    return NULL;
}

static void complain(const char *origin, const char *what, const char *key, size_t keylen,
                     const char *val, size_t vallen)
{
    if (!origin) /* quiet pass */
        return;
    char msg[512];
    size_t n = 0;
#define PUT(s, l) do { size_t l_ = (l); if (l_ > sizeof msg - n - 2) l_ = sizeof msg - n - 2; \
                       memcpy(msg + n, (s), l_); n += l_; } while (0)
    PUT("flightrec: ", 11);
    PUT(origin, strlen(origin));
    PUT(": ", 2);
    PUT(what, strlen(what));
    PUT(" '", 2);
    PUT(key, keylen);
    if (val) {
        PUT("=", 1);
        PUT(val, vallen);
    }
    PUT("'", 1);
    const char *hint = val ? value_hint(key, keylen) : NULL;
    if (hint) {
        PUT(": ", 2);
        PUT(hint, strlen(hint));
    }
#undef PUT
    msg[n++] = '\n';
    ssize_t r;
    do
        r = write(STDERR_FILENO, msg, n);
    while (r < 0 && errno == EINTR);
}

/* Unsigned decimal (or 0x hex) with an optional K/M/G suffix (x1024) when `suffixes`. */
static int parse_u64(const char *s, size_t len, int suffixes, uint64_t *out)
{
    char tmp[32];
    if (len == 0 || len >= sizeof tmp || s[0] == '-' || s[0] == '+')
        return -1;
    memcpy(tmp, s, len);
    tmp[len] = 0;
    uint64_t mult = 1;
    if (suffixes) {
        char c = tmp[len - 1];
        if (c == 'k' || c == 'K') mult = 1ull << 10;
        else if (c == 'm' || c == 'M') mult = 1ull << 20;
        else if (c == 'g' || c == 'G') mult = 1ull << 30;
        if (mult != 1) {
            tmp[--len] = 0;
            if (len == 0)
                return -1;
        }
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(tmp, &end, 0);
    if (errno || *end || v > UINT64_MAX / mult)
        return -1;
    *out = v * mult;
    return 0;
}

static int parse_bool(const char *s, size_t len, bool *out)
{
    if ((len == 1 && s[0] == '1') || (len == 4 && !strncmp(s, "true", 4)) ||
        (len == 3 && !strncmp(s, "yes", 3)))
        return *out = true, 0;
    if ((len == 1 && s[0] == '0') || (len == 5 && !strncmp(s, "false", 5)) ||
        (len == 2 && !strncmp(s, "no", 2)))
        return *out = false, 0;
    return -1;
}

static int copy_string(char *dst, size_t cap, const char *s, size_t len)
{
    if (len == 0 || len >= cap)
        return -1;
    memcpy(dst, s, len);
    dst[len] = 0;
    return 0;
}

static int is_key(const char *k, size_t klen, const char *name)
{
    return strlen(name) == klen && !memcmp(k, name, klen);
}

int fr_options_signal(const char *s, size_t len)
{
    char b[24];
    if (len == 0 || len >= sizeof b)
        return 0;
    memcpy(b, s, len);
    b[len] = 0;
    const char *p = strncmp(b, "SIG", 3) ? b : b + 3;
    int sig = 0;
    if (!strcmp(p, "USR1")) {
        sig = SIGUSR1;
    } else if (!strcmp(p, "USR2")) {
        sig = SIGUSR2;
    } else if (!strncmp(p, "RTMIN", 5) || !strncmp(p, "RTMAX", 5)) {
        int base = p[3] == 'I' ? SIGRTMIN : SIGRTMAX;
        char *end;
        long off = p[5] ? strtol(p + 5, &end, 10) : 0;
        if (p[5] && (*end || (p[5] != '+' && p[5] != '-')))
            return 0;
        sig = base + (int)off;
    } else if (p == b && p[0] >= '1' && p[0] <= '9') {
        char *end;
        long n = strtol(p, &end, 10);
        if (*end || n > 64)
            return 0;
        sig = (int)n;
    }
    if (sig == SIGUSR1 || sig == SIGUSR2 || (sig >= SIGRTMIN && sig <= SIGRTMAX))
        return sig;
    return 0;
}

const char *fr_backing_path_problem(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return "exists and is not a regular file (a device, a directory): name a new file";
    return NULL;
}

/* Applies one pair; returns 0, -1 bad value, -2 unknown key. */
static int apply(struct fr_options *o, const char *k, size_t kl, const char *v, size_t vl)
{
    uint64_t u;
    bool b;
    if (is_key(k, kl, "output"))
        return copy_string(o->output, sizeof o->output, v, vl);
    if (is_key(k, kl, "buffer_size")) {
        if (parse_u64(v, vl, 1, &u) || u < MIN_BUFFER_SIZE || u > MAX_BUFFER_SIZE)
            return -1;
        o->buffer_size = (size_t)((u + 7) & ~7ull);
        return 0;
    }
    if (is_key(k, kl, "buffers") || is_key(k, kl, "buffer_max")) {
        if (parse_u64(v, vl, 0, &u) || u < 1 || u > FR_MAX_BUFFERS)
            return -1;
        o->buffers = (uint32_t)u;
        return 0;
    }
    if (is_key(k, kl, "policy")) {
        if (vl == 9 && !memcmp(v, "overwrite", 9)) o->policy = FR_POLICY_OVERWRITE;
        else if (vl == 7 && !memcmp(v, "discard", 7)) o->policy = FR_POLICY_DISCARD;
        else return -1;
        return 0;
    }
    if (is_key(k, kl, "threshold_us") || is_key(k, kl, "func_duration_threshold_us")) {
        if (parse_u64(v, vl, 0, &u) || u > 3600ull * 1000000u)
            return -1;
        o->threshold_us = u;
        return 0;
    }
    if (is_key(k, kl, "sched")) {
        if (parse_bool(v, vl, &b)) return -1;
        o->sched = b;
        return 0;
    }
    if (is_key(k, kl, "start")) {
        if (parse_bool(v, vl, &b)) return -1;
        o->start = b;
        return 0;
    }
    if (is_key(k, kl, "patch")) {
        if (copy_string(o->patch, sizeof o->patch, v, vl))
            return -1;
        if (strcmp(o->patch, "all") && strcmp(o->patch, "none") && !fr_name_pattern_valid(o->patch)) {
            strcpy(o->patch, "all");
            return -1;
        }
        return 0;
    }
    if (is_key(k, kl, "exclude")) {
        if (copy_string(o->exclude, sizeof o->exclude, v, vl))
            return -1;
        if (!fr_name_pattern_valid(o->exclude)) {
            o->exclude[0] = 0;
            return -1;
        }
        return 0;
    }
    if (is_key(k, kl, "libcalls")) {
        if (parse_bool(v, vl, &b)) return -1;
#ifndef FR_ARCH_JUMP_SLOT_RELOC
        if (b)   /* no stubs in this port (functrace/libcall_unsupported.c) */
            return -1;
#endif
        o->libcalls = b;
        return 0;
    }
    if (is_key(k, kl, "max_depth")) {
        if (parse_u64(v, vl, 0, &u) || u < 1 || u > FR_MAX_DEPTH_LIMIT)
            return -1;
        o->max_depth = (uint32_t)u;
        return 0;
    }
    if (is_key(k, kl, "crash_dump")) {
        if (parse_bool(v, vl, &b)) return -1;
        o->crash_dump = b;
        return 0;
    }
    if (is_key(k, kl, "signal_flush")) {
        if (parse_bool(v, vl, &b)) return -1;
        o->signal_flush = b;
        return 0;
    }
    if (is_key(k, kl, "snapshot_signal")) {
        if (vl == 1 && v[0] == '0') {
            o->snapshot_signal = 0;
            return 0;
        }
        int sig = fr_options_signal(v, vl);
        if (!sig) return -1;
        o->snapshot_signal = sig;
        return 0;
    }
    if (is_key(k, kl, "backing")) {
        if (vl == 1 && v[0] == '0') {   /* backing=0: none (turns off one set earlier) */
            o->backing[0] = 0;
            return 0;
        }
        return copy_string(o->backing, sizeof o->backing, v, vl);
    }
    if (is_key(k, kl, "snapshot_output"))
        return copy_string(o->snapshot_output, sizeof o->snapshot_output, v, vl);
    if (is_key(k, kl, "events"))
        return vl < sizeof o->events && fr_event_spec_valid(v, vl)
                   ? (memcpy(o->events, v, vl), o->events[vl] = 0, 0) : -1;
    if (is_key(k, kl, "clock")) {
        if (vl == 4 && !memcmp(v, "auto", 4)) o->clock = FR_CLOCK_AUTO;
        else if (vl == 3 && !memcmp(v, "tsc", 3)) o->clock = FR_CLOCK_TSC;
        else if (vl == 9 && !memcmp(v, "monotonic", 9)) o->clock = FR_CLOCK_MONO;
        else return -1;
        return 0;
    }
    if (is_key(k, kl, "stream")) {
        if (parse_bool(v, vl, &b)) return -1;
        o->stream = b;
        return 0;
    }
    if (is_key(k, kl, "no_file_flush")) {
        if (parse_bool(v, vl, &b)) return -1;
        o->no_file_flush = b;
        return 0;
    }
    if (is_key(k, kl, "user_events")) {
        if (vl == 4 && !memcmp(v, "auto", 4)) o->user_events = FR_USER_EVENTS_AUTO;
        else if (vl == 2 && !memcmp(v, "on", 2)) o->user_events = FR_USER_EVENTS_ON;
        else if (vl == 3 && !memcmp(v, "off", 3)) o->user_events = FR_USER_EVENTS_OFF;
        else return -1;
        return 0;
    }
    if (is_key(k, kl, "file_mode")) {
        /* octal permission bits only: no setuid/setgid/sticky on a trace */
        char m[8];
        if (vl == 0 || vl >= sizeof m)
            return -1;
        memcpy(m, v, vl);
        m[vl] = 0;
        char *end;
        unsigned long mode = strtoul(m, &end, 8);
        if (*end || m[0] == '-' || m[0] == '+' || mode > 0777)
            return -1;
        o->file_mode = (uint32_t)mode;
        return 0;
    }
    if (is_key(k, kl, "grace_period_ms")) /* XRay compat: accepted, nothing to wait for */
        return parse_u64(v, vl, 0, &u);
    return -2;
}

static const struct { const char *name; uint32_t bit; } key_bits[] = {
    {"output", FR_OPT_OUTPUT}, {"buffer_size", FR_OPT_BUFFER_SIZE},
    {"buffers", FR_OPT_BUFFERS}, {"buffer_max", FR_OPT_BUFFERS}, {"policy", FR_OPT_POLICY},
    {"threshold_us", FR_OPT_THRESHOLD_US}, {"func_duration_threshold_us", FR_OPT_THRESHOLD_US},
    {"start", FR_OPT_START}, {"patch", FR_OPT_PATCH}, {"crash_dump", FR_OPT_CRASH_DUMP},
    {"signal_flush", FR_OPT_SIGNAL_FLUSH}, {"snapshot_signal", FR_OPT_SNAPSHOT_SIGNAL},
    {"backing", FR_OPT_BACKING}, {"snapshot_output", FR_OPT_SNAPSHOT_OUTPUT},
    {"events", FR_OPT_EVENTS}, {"clock", FR_OPT_CLOCK}, {"stream", FR_OPT_STREAM},
    {"no_file_flush", FR_OPT_NO_FILE_FLUSH}, {"user_events", FR_OPT_USER_EVENTS},
    {"file_mode", FR_OPT_FILE_MODE}, {"grace_period_ms", FR_OPT_GRACE_PERIOD_MS},
    {"sched", FR_OPT_SCHED},
    {"exclude", FR_OPT_EXCLUDE}, {"max_depth", FR_OPT_MAX_DEPTH},
    {"libcalls", FR_OPT_LIBCALLS},
};

static uint32_t key_bit(const char *k, size_t kl)
{
    for (size_t i = 0; i < sizeof key_bits / sizeof key_bits[0]; i++)
        if (is_key(k, kl, key_bits[i].name))
            return key_bits[i].bit;
    return 0;
}

int fr_options_parse(struct fr_options *o, const char *text, const char *origin)
{
    int ok = 0;
    if (!text)
        return 0;
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == ',' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        const char *start = p;
        while (*p && *p != ' ' && *p != ',' && *p != '\t' && *p != '\n' && *p != '=')
            p++;
        if (*p != '=') {
            complain(origin, "expected key=value, got", start, (size_t)(p - start), NULL, 0);
            ok = -1;
            continue;
        }
        size_t kl = (size_t)(p - start);
        const char *v = ++p;
        size_t vl;
        if (*p == '"' || *p == '\'') {
            /* A quoted value holds spaces and commas (a path: `flightrec record` quotes
             * the ones that have them); it ends at the same quote, no escapes. */
            const char *close = strchr(p + 1, *p);
            if (!close || (close[1] && close[1] != ' ' && close[1] != ',' && close[1] != '\t' &&
                           close[1] != '\n')) {
                complain(origin, "unterminated quoted value for option", start, kl, NULL, 0);
                ok = -1;
                p = close ? close + 1 : p + strlen(p);   /* past it, to the next separator */
                while (*p && *p != ' ' && *p != ',' && *p != '\t' && *p != '\n')
                    p++;
                continue;
            }
            v = p + 1;
            vl = (size_t)(close - v);
            p = close + 1;
            goto apply_it;
        }
        while (*p && *p != ' ' && *p != ',' && *p != '\t' && *p != '\n')
            p++;
        vl = (size_t)(p - v);
        /* events= lists providers separated by commas ("P:5:0xff,Q:4"): following
         * comma-separated items without '=' still belong to its value. */
        if (kl == 6 && !memcmp(start, "events", 6)) {
            while (*p == ',') {
                const char *q = p + 1;
                while (*q && *q != ' ' && *q != ',' && *q != '\t' && *q != '\n' && *q != '=')
                    q++;
                if (*q == '=' || q == p + 1)
                    break;
                p = q;
            }
            vl = (size_t)(p - v);
        }
    apply_it:;
        int r = apply(o, start, kl, v, vl);
        if (r == 0)
            o->given |= key_bit(start, kl);
        if (r == -2) {
            complain(origin, "unknown option", start, kl, NULL, 0);
            ok = -1;
        } else if (r < 0) {
            complain(origin, "bad value for option", start, kl, v, vl);
            ok = -1;
        }
    }
    return ok;
}

/* ---------------------------------------------------------------- FLIGHTREC_OPTIONS */

/* The last value parsed and its result. A spin lock, not a mutex: this file is libc
 * only (the command links it too), and the parse is short and rare. */
static int env_lock;
static char env_text[8192];
static int env_parsed, env_bad;
static struct fr_options env_options;

int fr_options_from_env(struct fr_options *out, const char *origin)
{
    const char *text = secure_getenv("FLIGHTREC_OPTIONS");
    if (!text)
        text = "";
    while (__atomic_exchange_n(&env_lock, 1, __ATOMIC_ACQUIRE))
        ;
    size_t len = strlen(text);
    if (!env_parsed || len >= sizeof env_text || strcmp(env_text, text)) {
        fr_options_defaults(&env_options);
        env_bad = fr_options_parse(&env_options, text, NULL) != 0;
        if (len < sizeof env_text) {
            memcpy(env_text, text, len + 1);
            env_parsed = 1;
        } else {
            env_parsed = 0;   /* too long to remember: parsed again next time */
        }
    }
    *out = env_options;
    int bad = env_bad;
    __atomic_store_n(&env_lock, 0, __ATOMIC_RELEASE);
    if (bad && origin) {
        /* what was refused, said by the parser itself (its result is in *out already) */
        struct fr_options scratch;
        fr_options_defaults(&scratch);
        fr_options_parse(&scratch, text, origin);
    }
    return bad ? -1 : 0;
}
