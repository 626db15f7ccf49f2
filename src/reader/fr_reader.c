/*
 * fr_reader.c - streaming reader of XRay trace files (see fr_reader.h).
 *
 * Bytes come through one window (a fixed-size buffer over the file, or the caller's
 * memory): need() makes a byte range available, sliding the window forward. The window
 * only grows when one record is larger than it (a custom or typed event payload), and
 * that size is bounded by FR_READER_MAX_PAYLOAD, so memory never grows with the file.
 *
 * Formats (compiler-rt's writers, and llvm-xray 14's reading of them):
 *  - FDR (header type 1), versions 1..5. A file is a sequence of blocks, one per flushed
 *    thread buffer. v2+: each block starts with a BufferExtents record giving the number
 *    of bytes that follow it (compiler-rt writes only those bytes). v1: a block starts
 *    with NewBuffer and spans the header's buffer_size bytes; an EndOfBuffer record ends
 *    its records and the rest of the buffer is unused. Preamble: NewBuffer WalltimeMarker
 *    [Pid] NewCPUId. v5 custom events carry a TSC delta; v1..v4 custom events carry an
 *    absolute TSC (and from v4 a CPU) and leave the delta base alone.
 *  - flightrec's own records (FR_TE_*, docs/FORMAT.md): custom events that begin with
 *    the envelope are returned as FR_REC_TYPED with their FR_TE type (and .envelope set),
 *    as are the typed events of that range that files before the envelope hold.
 *  - Basic ("naive", header type 0), versions 1..3: 32-byte records with absolute TSC,
 *    thread and process; an enter-with-argument record is followed by an argument record.
 */
#include "fr_reader.h"
#include "fr_block.h"
#include "regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* read() size: 64 KiB, a quarter of the L2 cache of a small core. With 256 KiB reads,
 * copying a 160 MB trace from the page cache took 0.08 s of system time, 0.01-0.02 s
 * with 32 or 64 KiB (the copy's destination stays in cache): measured with
 * bench/convert_readsum, which reads through this window as the analyses do. */
#define FR_READER_WINDOW      (64u * 1024u)
#define FR_READER_MAX_PAYLOAD (64u * 1024u * 1024u)
/* A hidden metadata block (docs/FORMAT.md) is read whole: at most this many bytes (a
 * larger one is read as the NewCPUId records it is made of). */
#define FR_READER_MAX_HIDDEN  (256ull * 1024u * 1024u)
#define HIDDEN_PIECE          FR_MD_PAYLOAD_MAX   /* carried bytes per record: its payload */
#define EVENTHEADER_SIZE      8     /* an EventHeader event's fixed header */

enum block_state {
    BETWEEN_BLOCKS,   /* expecting a new block (BufferExtents, or NewBuffer in v1) */
    WANT_NEW_BUFFER,
    WANT_WALLTIME,
    WANT_PID_OR_CPU,
    WANT_CPU,
    IN_BODY,
    IN_RUN,           /* returning the events of an FR_TE_EVENT_RUN record one by one */
    READ_FAILED,      /* after an error: nothing more is read */
    READ_CUT,         /* the data ended inside a block or record: nothing more to read */
};

struct fr_reader {
    char *name;
    fr_trace_info info;
    bool size_known;          /* info.file_size is the real size (regular file or memory) */

    /* Byte source: memory, or a file read through a window. */
    const uint8_t *mem;
    int      fd;
    uint8_t *win;
    size_t   win_cap, win_len;
    uint64_t win_off;         /* file offset of win[0] */
    uint64_t read_off;        /* file offset of the next read() */
    bool     io_error;

    uint64_t pos;             /* offset of the next record */
    bool     failed;
    char     err[512];
    bool     cut;             /* the data ended inside a block or a record */
    uint64_t cut_off;
    char     cut_msg[512];

    /* FDR state */
    enum block_state st;
    uint64_t block_start, block_end;
    bool     after_function;  /* a CallArgument may follow */
    int32_t  tid, pid;
    uint16_t cpu;
    uint64_t tsc;
    int64_t  wall_sec;
    int32_t  wall_usec;

    /* Structured events: the sites (FR_TE_EVENT_SITE, by id) and the run being read */
    struct fr_site_def { uint8_t *bytes; uint32_t size, head; } *sites;
    uint32_t nsites;          /* entries of sites[] (ids 0..nsites-1) */
    uint64_t run_start, run_next, run_end; /* payload (after the envelope), next entry, end */
    uint32_t run_envelope, run_index;
    uint64_t run_tsc0, run_tsc;  /* the run's timestamp; its last entry's */
    uint16_t run_type;        /* event type of the stored record: 0 custom, else typed */
    uint8_t *event;           /* the event rebuilt for the caller */
    size_t   event_cap;

    /* A hidden metadata block (compiler-rt's layout, written for xray-fdr sessions:
     * docs/FORMAT.md): its carried records, with the block's preamble before them, are
     * read from `ov` as if they were the file's bytes at [ov_off, ov_off + ov_len); the
     * next block starts at ov_next. */
    uint8_t *ov;
    uint64_t ov_off, ov_len, ov_next;

    /* Basic mode state */
    bool     have_thread;
    bool     block_announced; /* FR_REC_BLOCK already returned for the record at pos */
    uint32_t last_fid;
};

/* ------------------------------------------------------------------ errors */

static fr_read_status fail(fr_reader *r, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static fr_read_status fail(fr_reader *r, uint64_t off, const char *fmt, ...)
{
    if (r->failed)
        return FR_READ_ERROR;
    int n = snprintf(r->err, sizeof r->err, "%s: offset %llu: ", r->name, (unsigned long long)off);
    if (n < 0 || (size_t)n >= sizeof r->err)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, sizeof r->err - (size_t)n, fmt, ap);
    va_end(ap);
    r->failed = true;
    r->st = READ_FAILED;
    return FR_READ_ERROR;
}

/* The file ended (or could not be read) where `what` should have been. */
static fr_read_status truncated(fr_reader *r, uint64_t off, const char *what)
{
    if (r->io_error)
        return fail(r, off, "expected %s: read error: %s", what, strerror(errno));
    return fail(r, off, "expected %s, found the end of the file", what);
}

/* The data end inside `what`, which begins at off: a trace cut short (a crash, a full
 * disk, a copy still running). Not an error: every whole record before off has been
 * returned, and the read ends here (FR_READ_EOF, fr_reader_truncation says where). A read
 * error is still an error. */
static fr_read_status cut_short(fr_reader *r, uint64_t off, const char *what)
{
    if (r->io_error)
        return truncated(r, off, what);
    if (!r->cut) {
        int n = snprintf(r->cut_msg, sizeof r->cut_msg, "%s: offset %llu: the file ends inside %s",
                         r->name, (unsigned long long)off, what);
        if (n > 0 && (size_t)n < sizeof r->cut_msg && r->st != BETWEEN_BLOCKS &&
            r->block_end != UINT64_MAX)
            snprintf(r->cut_msg + n, sizeof r->cut_msg - (size_t)n,
                     " (the block that begins at offset %llu should end at offset %llu)",
                     (unsigned long long)r->block_start, (unsigned long long)r->block_end);
        r->cut = true;
        r->cut_off = off;
    }
    r->pos = off;
    r->st = READ_CUT;
    return FR_READ_EOF;
}

/* ------------------------------------------------------------------ byte window */

static bool fill_from(fr_reader *r, uint64_t off)
{
    /* Move the window start to off, keeping any bytes already read past it. */
    uint64_t win_end = r->win_off + r->win_len;
    if (off < win_end) {
        size_t keep = (size_t)(win_end - off);
        memmove(r->win, r->win + (off - r->win_off), keep);
        r->win_len = keep;
    } else {
        r->win_len = 0;
        if (off != r->read_off) {
            if (lseek(r->fd, (off_t)off, SEEK_SET) == (off_t)-1) {
                r->io_error = true;
                return false;
            }
            r->read_off = off;
        }
    }
    r->win_off = off;
    return true;
}

/* Returns the n bytes at file offset off, or NULL if the file ends before them (or a read
 * fails: io_error). Offsets only move forward; the pointer is valid until the next call. */
static const uint8_t *need(fr_reader *r, uint64_t off, size_t n)
{
    if (r->ov && off >= r->ov_off && off - r->ov_off <= r->ov_len && n <= r->ov_len - (off - r->ov_off))
        return r->ov + (off - r->ov_off);
    if (r->mem) {
        if (off > r->info.file_size || n > r->info.file_size - off)
            return NULL;
        return r->mem + off;
    }
    if (off >= r->win_off && off - r->win_off <= r->win_len && n <= r->win_len - (off - r->win_off))
        return r->win + (off - r->win_off);
    if (n > r->win_cap) {
        uint8_t *w = realloc(r->win, n);
        if (!w) {
            errno = ENOMEM;
            r->io_error = true;
            return NULL;
        }
        r->win = w;
        r->win_cap = n;
    }
    if (!fill_from(r, off))
        return NULL;
    while (r->win_len < n) {
        ssize_t k = read(r->fd, r->win + r->win_len, r->win_cap - r->win_len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            r->io_error = true;
            return NULL;
        }
        if (k == 0)
            break;
        r->win_len += (size_t)k;
        r->read_off += (uint64_t)k;
    }
    return r->win_len >= n ? r->win : NULL;
}


/* ------------------------------------------------------------------ open / close */

static fr_reader *reader_new(const char *name)
{
    fr_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->name = strdup(name ? name : "(memory)");
    if (!r->name) {
        free(r);
        return NULL;
    }
    r->fd = -1;
    r->st = BETWEEN_BLOCKS;
    return r;
}

static void set_err(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
}

/* Reads and checks the 32-byte file header. */
static bool read_header(fr_reader *r)
{
    const uint8_t *p = need(r, 0, FR_XRAY_HEADER_SIZE);
    if (!p) {
        truncated(r, r->size_known ? r->info.file_size : 0, "a 32-byte XRay file header");
        return false;
    }
    struct fr_xray_file_header h;
    memcpy(&h, p, sizeof h);
    r->info.version = h.version;
    r->info.type = h.type;
    r->info.flags = h.flags;
    r->info.ticks_per_second = h.cycle_frequency;
    r->info.buffer_size = h.buffer_size;
    if (h.type == FR_XRAY_TYPE_FDR) {
        if (h.version < 1 || h.version > 5) {
            fail(r, 0, "expected FDR file version 1..5, found %u", h.version);
            return false;
        }
        if (h.version == 1 && h.buffer_size < 3 * FR_XRAY_METADATA_SIZE) {
            fail(r, offsetof(struct fr_xray_file_header, buffer_size),
                 "expected a buffer size of at least %d bytes in a version 1 file, found %llu",
                 3 * FR_XRAY_METADATA_SIZE, (unsigned long long)h.buffer_size);
            return false;
        }
    } else if (h.type == FR_XRAY_TYPE_NAIVE) {
        if (h.version < 1 || h.version > 3) {
            fail(r, 0, "expected basic-mode file version 1..3, found %u", h.version);
            return false;
        }
    } else {
        fail(r, offsetof(struct fr_xray_file_header, type),
             "expected XRay file type 0 (basic) or 1 (FDR), found %u "
                   "(is this an XRay trace?)", h.type);
        return false;
    }
    r->pos = FR_XRAY_HEADER_SIZE;
    return true;
}

static fr_reader *finish_open(fr_reader *r, char *err, size_t errlen)
{
    if (!read_header(r)) {
        set_err(err, errlen, r->err);
        fr_reader_close(r);
        return NULL;
    }
    return r;
}

fr_reader *fr_reader_open(const char *path, char *err, size_t errlen)
{
    fr_reader *r = reader_new(path);
    if (!r) {
        set_err(err, errlen, "out of memory");
        return NULL;
    }
    /* Regular files only, never waiting on one (see regular_file.h); the trace's own
     * path must not be a symbolic link. */
    r->fd = fr_open_regular(path, FR_OPEN_NOFOLLOW, err, errlen);
    struct stat st;
    if (r->fd < 0 || fstat(r->fd, &st) != 0) {
        if (r->fd >= 0 && err && errlen)
            snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        fr_reader_close(r);
        return NULL;
    }
    r->info.file_size = (uint64_t)st.st_size;
    r->size_known = true;
    r->win_cap = FR_READER_WINDOW;
    r->win = malloc(r->win_cap);
    if (!r->win) {
        set_err(err, errlen, "out of memory");
        fr_reader_close(r);
        return NULL;
    }
    return finish_open(r, err, errlen);
}

fr_reader *fr_reader_open_memory(const void *data, size_t size, const char *name,
                                 char *err, size_t errlen)
{
    fr_reader *r = reader_new(name);
    if (!r) {
        set_err(err, errlen, "out of memory");
        return NULL;
    }
    static const uint8_t empty[1];
    r->mem = data ? data : empty;
    r->info.file_size = data ? size : 0;
    r->size_known = true;
    return finish_open(r, err, errlen);
}

void fr_reader_close(fr_reader *r)
{
    if (!r)
        return;
    if (r->fd >= 0)
        close(r->fd);
    for (uint32_t i = 0; i < r->nsites; i++)
        free(r->sites[i].bytes);
    free(r->sites);
    free(r->event);
    free(r->win);
    free(r->ov);
    free(r->name);
    free(r);
}

const fr_trace_info *fr_reader_info(const fr_reader *r) { return &r->info; }
const char *fr_reader_error(const fr_reader *r) { return r->failed ? r->err : ""; }

const char *fr_reader_truncation(const fr_reader *r, uint64_t *offset)
{
    if (!r->cut || r->failed)
        return NULL;
    if (offset)
        *offset = r->cut_off;
    return r->cut_msg;
}
uint64_t fr_reader_position(const fr_reader *r) { return r->pos; }

/* ------------------------------------------------------------------ FDR */

static const char *metadata_name(unsigned kind)
{
    static const char *const names[] = {
        "NewBuffer", "EndOfBuffer", "NewCPUId", "TSCWrap", "WalltimeMarker",
        "CustomEventMarker", "CallArgument", "BufferExtents", "TypedEventMarker", "Pid",
    };
    return kind < sizeof names / sizeof names[0] ? names[kind] : "unknown metadata";
}

static inline void fill_thread(const fr_reader *r, fr_record *out, fr_record_kind kind,
                               uint64_t off)
{
    *out = (fr_record){0};
    out->kind = kind;
    out->tid = r->tid;
    out->pid = r->pid;
    out->cpu = r->cpu;
    out->tsc = r->tsc;
    out->offset = off;
}

static void block_record(const fr_reader *r, fr_record *out)
{
    fill_thread(r, out, FR_REC_BLOCK, r->block_start);
    out->walltime_sec = r->wall_sec;
    out->walltime_usec = r->wall_usec;
}

/* Starts the next block at r->pos. Returns 1 if one started, 0 at the end of the file. */
/* The carried byte k of a hidden block whose first carrier record is at p. */
static uint8_t carried_byte(const uint8_t *p, uint64_t k)
{
    return p[(k / HIDDEN_PIECE) * FR_XRAY_METADATA_SIZE + FR_MD_PAYLOAD_AT + k % HIDDEN_PIECE];
}

/* A block of n bytes at body: if it is a hidden metadata block (thread 0's preamble, then
 * NewCPUId records whose carried bytes begin with a custom event in flightrec's
 * envelope), its carried records become the overlay and 1 is returned; 0 otherwise (or
 * -1 when out of memory). */
static int hide_in_overlay(fr_reader *r, uint64_t body, uint64_t n)
{
    const size_t pre = FR_BUFFER_PREAMBLE, probe = pre + 3 * FR_XRAY_METADATA_SIZE;
    if (n < probe || (n - pre) % FR_XRAY_METADATA_SIZE || n > FR_READER_MAX_HIDDEN)
        return 0;
    const uint8_t *p = need(r, body, probe);
    if (!p || p[0] != FR_MD_BYTE0(FR_MD_NEW_BUFFER) || fr_md_get_new_buffer(p).tid != 0)
        return 0;
    const uint8_t *c = p + pre;
    for (size_t i = 0; i < 3; i++)
        if (c[i * FR_XRAY_METADATA_SIZE] != FR_MD_BYTE0(FR_MD_NEW_CPU_ID))
            return 0;
    char magic[FR_TE_MAGIC_SIZE];
    for (size_t k = 0; k < sizeof magic; k++)
        magic[k] = (char)carried_byte(c, FR_XRAY_METADATA_SIZE + k);
    if (carried_byte(c, 0) != FR_MD_BYTE0(FR_MD_CUSTOM_EVENT) ||
        memcmp(magic, FR_TE_MAGIC, FR_TE_MAGIC_SIZE))
        return 0;
    p = need(r, body, (size_t)n);
    if (!p)
        return 0;   /* cut short: read as it is, the cut is reported there */
    uint64_t pieces = (n - pre) / FR_XRAY_METADATA_SIZE;
    uint8_t *ov = malloc(pre + pieces * HIDDEN_PIECE);
    if (!ov)
        return -1;
    memcpy(ov, p, pre);
    c = p + pre;
    for (uint64_t i = 0; i < pieces; i++) {
        if (c[i * FR_XRAY_METADATA_SIZE] != FR_MD_BYTE0(FR_MD_NEW_CPU_ID)) {
            free(ov);
            return 0;
        }
        memcpy(ov + pre + i * HIDDEN_PIECE, c + i * FR_XRAY_METADATA_SIZE + FR_MD_PAYLOAD_AT,
               HIDDEN_PIECE);
    }
    /* The carried records are custom events; the zero padding of the last piece follows
     * them (a custom event begins with a nonzero byte). */
    uint64_t len = pre, total = pre + pieces * HIDDEN_PIECE;
    while (len < total && ov[len] == FR_MD_BYTE0(FR_MD_CUSTOM_EVENT) &&
           total - len >= FR_XRAY_METADATA_SIZE) {
        int32_t size = fr_md_get_event_size(ov + len);
        if (size < 0 || (uint64_t)size > total - len - FR_XRAY_METADATA_SIZE)
            break;
        len += FR_XRAY_METADATA_SIZE + (uint64_t)size;
    }
    free(r->ov);
    r->ov = ov;
    r->ov_off = body;
    r->ov_len = len;
    r->ov_next = body + n;
    r->block_end = body + len;
    return 1;
}

static int begin_block(fr_reader *r)
{
    if (r->ov && r->pos >= r->ov_off && r->pos - r->ov_off >= r->ov_len) {
        r->pos = r->ov_next;   /* past the hidden block's carriers */
        free(r->ov);
        r->ov = NULL;
    }
    uint64_t off = r->pos;
    const uint8_t *p = need(r, off, 1);
    if (!p)
        return r->io_error ? (truncated(r, off, "a block"), -1) : 0;
    r->block_start = off;
    r->after_function = false;
    r->tid = r->pid = 0;
    r->cpu = 0;
    r->tsc = 0;
    r->wall_sec = 0;
    r->wall_usec = 0;
    if (r->info.version == 1) {
        /* The block is the whole buffer; the file may end early after EndOfBuffer. */
        r->block_end = r->info.buffer_size > UINT64_MAX - off ? UINT64_MAX
                                                              : off + r->info.buffer_size;
        r->st = WANT_NEW_BUFFER;
        return 1;
    }
    if (p[0] != FR_MD_BYTE0(FR_MD_BUFFER_EXTENTS)) {
        fail(r, off, "expected a BufferExtents record (first byte 0x%02x) to begin a block, "
                     "found 0x%02x", FR_MD_BYTE0(FR_MD_BUFFER_EXTENTS), p[0]);
        return -1;
    }
    p = need(r, off, FR_XRAY_METADATA_SIZE);
    if (!p)
        return cut_short(r, off, "a 16-byte BufferExtents record") == FR_READ_EOF ? 0 : -1;
    uint64_t n = fr_md_get_buffer_extents(p).size;
    uint64_t body = off + FR_XRAY_METADATA_SIZE;
    /* A block that passes the end of the file is a cut trace: its records are read up to
     * the cut (need() finds the end). Only a size no file can have is an error. */
    if (n > UINT64_MAX - body) {
        fail(r, off, "expected a block of at most %llu bytes, BufferExtents says %llu",
             (unsigned long long)(UINT64_MAX - body), (unsigned long long)n);
        return -1;
    }
    r->pos = body;
    r->block_end = body + n;
    r->st = n ? WANT_NEW_BUFFER : BETWEEN_BLOCKS;  /* an empty block holds nothing */
    if (r->info.version >= 5 && hide_in_overlay(r, body, n) < 0) {
        errno = ENOMEM;
        r->io_error = true;
        truncated(r, off, "a hidden metadata block (out of memory)");
        return -1;
    }
    return 1;
}

/* The current block has no more bytes. Returns FR_READ_OK if a FR_REC_BLOCK is due (a
 * block that ended right after its preamble), FR_READ_EOF to go on to the next block. */
static fr_read_status end_block(fr_reader *r, fr_record *out)
{
    enum block_state st = r->st;
    r->st = BETWEEN_BLOCKS;
    if (r->info.version == 1) {
        /* Skip the unused tail of the buffer, which may be cut short by the end of file. */
        r->pos = r->block_end;
        if (r->size_known && r->pos > r->info.file_size)
            r->pos = r->info.file_size;
    }
    switch (st) {
    case WANT_NEW_BUFFER:
        return fail(r, r->pos, "expected a NewBuffer record before the end of the block "
                               "that begins at offset %llu", (unsigned long long)r->block_start);
    case WANT_WALLTIME:
        return fail(r, r->pos, "expected a WalltimeMarker record before the end of the block "
                               "that begins at offset %llu", (unsigned long long)r->block_start);
    case WANT_PID_OR_CPU:
    case WANT_CPU:
        /* A buffer that got its preamble and nothing else: still a thread's block. */
        block_record(r, out);
        return FR_READ_OK;
    default:
        return FR_READ_EOF; /* nothing to return: go on to the next block */
    }
}

/* ------------------------------------------------------------------ structured events */

/* FR_TE_EVENT_SITE: remembers the site's bytes (tracepoint name NUL, header, metadata).
 * A malformed record, an id out of range or a second record of an id is ignored. */
static void keep_site(fr_reader *r, const uint8_t *data, uint32_t size)
{
    struct fr_te_event_site fixed;
    if (size < sizeof fixed)
        return;
    memcpy(&fixed, data, sizeof fixed);
    const uint8_t *bytes = data + sizeof fixed;
    uint32_t n = size - (uint32_t)sizeof fixed;
    const uint8_t *nul = memchr(bytes, 0, n);
    if (fixed.site == 0 || fixed.site > FR_EVENT_SITE_MAX || !nul ||
        (size_t)(nul + 1 - bytes) + EVENTHEADER_SIZE > n)
        return;
    if (fixed.site >= r->nsites) {
        uint32_t cap = fixed.site + 1 > 2 * r->nsites ? fixed.site + 1 : 2 * r->nsites;
        if (cap > FR_EVENT_SITE_MAX + 1)
            cap = FR_EVENT_SITE_MAX + 1;
        struct fr_site_def *s = realloc(r->sites, cap * sizeof *s);
        if (!s)
            return;
        memset(s + r->nsites, 0, (cap - r->nsites) * sizeof *s);
        r->sites = s;
        r->nsites = cap;
    }
    struct fr_site_def *d = &r->sites[fixed.site];
    if (d->bytes)
        return;
    d->bytes = malloc(n);
    if (!d->bytes)
        return;
    memcpy(d->bytes, bytes, n);
    d->size = n;
    d->head = (uint32_t)(nul + 1 - bytes) + EVENTHEADER_SIZE;
}

static bool event_room(fr_reader *r, size_t n)
{
    if (n <= r->event_cap)
        return true;
    size_t cap = n < 256 ? 256 : n;
    uint8_t *e = realloc(r->event, cap);
    if (!e)
        return false;
    r->event = e;
    r->event_cap = cap;
    return true;
}

/* The next event of the run being read (IN_RUN): an FR_TE_EVENT record rebuilt from its
 * site's bytes and its entry, or, for a site the file does not describe (or a damaged
 * entry: then the rest of the run), an FR_TE_EVENT_RUN record of the entry's bytes, never
 * an event decoded with metadata that is not its own. FR_READ_EOF at the run's end. */
static fr_read_status run_event(fr_reader *r, fr_record *out)
{
    if (r->run_next >= r->run_end) {
        r->st = IN_BODY;
        return FR_READ_EOF;
    }
    uint64_t off = r->run_next;
    const uint8_t *run = need(r, r->run_start, (size_t)(r->run_end - r->run_start));
    if (!run)   /* read before, whole: only a read error can get here */
        return truncated(r, off, "an event run");
    const uint8_t *p = run + (off - r->run_start), *end = run + (r->run_end - r->run_start);
    uint64_t key = 0, delta = 0, vsize = 0;
    const size_t len = fr_run_entry_get(p, end, &key, &delta, &vsize);
    const bool whole = len != 0;
    fill_thread(r, out, FR_REC_TYPED, off);
    out->run_index = ++r->run_index;
    out->run_stored = run;
    out->run_stored_size = (uint32_t)(r->run_end - r->run_start);
    out->run_envelope = r->run_envelope;
    out->run_tsc = r->run_tsc0;
    if (!whole) {
        /* damaged: the rest of the run, as it is */
        out->event_type = FR_TE_EVENT_RUN;
        out->data = p;
        out->size = (uint32_t)(end - p);
        out->tsc = r->run_tsc;
        r->run_next = r->run_end;
        return FR_READ_OK;
    }
    r->run_tsc += delta;
    out->tsc = r->run_tsc;
    r->run_next = off + len;
    const uint8_t *values = p + len - vsize;
    uint64_t site = key >> 1;
    const struct fr_site_def *d = site < r->nsites ? &r->sites[site] : NULL;
    size_t ext = 0;
    if (d && d->bytes && (key & 1)) {
        /* the activity extension: its 4-byte header's u16 size, then that many bytes */
        ext = vsize >= 4 ? 4 + (size_t)(values[0] | values[1] << 8) : SIZE_MAX;
        if (ext > vsize)
            d = NULL;
    }
    if (!d || !d->bytes || !event_room(r, d->size + vsize)) {
        out->event_type = FR_TE_EVENT_RUN;
        out->data = p;
        out->size = (uint32_t)len;
        return FR_READ_OK;
    }
    /* name NUL, header, [activity extension], metadata extension, values */
    uint8_t *e = r->event;
    memcpy(e, d->bytes, d->head);
    memcpy(e + d->head, values, ext);
    memcpy(e + d->head + ext, d->bytes + d->head, d->size - d->head);
    memcpy(e + d->size + ext, values + ext, vsize - ext);
    out->event_type = FR_TE_EVENT;
    out->data = e;
    out->size = (uint32_t)(d->size + vsize);
    return FR_READ_OK;
}

static fr_read_status fdr_metadata(fr_reader *r, fr_record *out, const uint8_t *p, uint64_t off,
                                   bool *produced)
{
    unsigned kind = fr_md_kind(p[0]);
    const enum block_state st = r->st;
    *produced = false;

    /* The preamble, in order. */
    if (st == WANT_NEW_BUFFER) {
        if (kind != FR_MD_NEW_BUFFER)
            return fail(r, off, "expected a NewBuffer record to begin the block, found %s",
                        metadata_name(kind));
        r->tid = fr_md_get_new_buffer(p).tid;
        r->st = WANT_WALLTIME;
        r->pos = off + FR_XRAY_METADATA_SIZE;
        return FR_READ_OK;
    }
    if (st == WANT_WALLTIME) {
        if (kind != FR_MD_WALLTIME_MARKER)
            return fail(r, off, "expected a WalltimeMarker record after NewBuffer, found %s",
                        metadata_name(kind));
        struct fr_md_walltime wt = fr_md_get_walltime(p);
        r->wall_sec = wt.seconds;
        r->wall_usec = wt.microseconds;
        r->st = WANT_PID_OR_CPU;
        r->pos = off + FR_XRAY_METADATA_SIZE;
        return FR_READ_OK;
    }
    if (st == WANT_PID_OR_CPU && kind == FR_MD_PID) {
        r->pid = fr_md_get_pid(p).pid;
        r->st = WANT_CPU;
        r->pos = off + FR_XRAY_METADATA_SIZE;
        return FR_READ_OK;
    }
    if (st == WANT_PID_OR_CPU || st == WANT_CPU) {
        if (kind != FR_MD_NEW_CPU_ID)
            return fail(r, off, "expected a %sNewCPUId record to end the block's preamble, found %s",
                        st == WANT_PID_OR_CPU ? "Pid or " : "", metadata_name(kind));
        struct fr_md_new_cpu_id nc = fr_md_get_new_cpu_id(p);
        r->cpu = nc.cpu;
        r->tsc = nc.tsc;
        r->st = IN_BODY;
        r->pos = off + FR_XRAY_METADATA_SIZE;
        block_record(r, out);
        *produced = true;
        return FR_READ_OK;
    }

    /* The body. */
    bool after_function = r->after_function;
    r->after_function = false;
    uint64_t next = off + FR_XRAY_METADATA_SIZE;
    switch (kind) {
    case FR_MD_NEW_CPU_ID: {
        struct fr_md_new_cpu_id nc = fr_md_get_new_cpu_id(p);
        r->cpu = nc.cpu;
        r->tsc = nc.tsc;
        break;
    }
    case FR_MD_TSC_WRAP:
        r->tsc = fr_md_get_tsc_wrap(p).tsc;
        break;
    case FR_MD_CALL_ARGUMENT:
        /* The argument of an enter-with-argument record is folded into it; compiler-rt
         * writes one; further ones (llvm-xray accepts them) are skipped. */
        if (!after_function)
            return fail(r, off, "expected a CallArgument record only after a function record");
        r->after_function = true;
        break;
    case FR_MD_END_OF_BUFFER:
        if (r->info.version >= 2)
            return fail(r, off, "expected no EndOfBuffer record in a version %u file "
                                "(they end version 1 buffers only)", r->info.version);
        r->pos = r->block_end;  /* the rest of the buffer is unused */
        return FR_READ_OK;
    case FR_MD_CUSTOM_EVENT:
    case FR_MD_TYPED_EVENT: {
        int32_t size = fr_md_get_event_size(p);
        if (size < 0)
            return fail(r, off, "expected a non-negative event size, found %d", size);
        if ((uint64_t)size > r->block_end - next)
            return fail(r, off, "expected an event of at most %llu bytes (to the end of its "
                                "block), found size %d",
                        (unsigned long long)(r->block_end - next), size);
        if ((uint32_t)size > FR_READER_MAX_PAYLOAD)
            return fail(r, off, "expected an event payload of at most %u bytes, found %d",
                        FR_READER_MAX_PAYLOAD, size);
        uint64_t tsc;
        uint16_t cpu = r->cpu, type = 0;
        if (kind == FR_MD_TYPED_EVENT) {
            struct fr_md_typed_event ev = fr_md_get_typed_event(p);
            r->tsc += (uint64_t)(int64_t)ev.tsc_delta;
            tsc = r->tsc;
            type = ev.type;
        } else if (r->info.version >= 5) {
            r->tsc += (uint64_t)(int64_t)fr_md_get_custom_event(p).tsc_delta;
            tsc = r->tsc;
        } else {
            /* v1..v4: absolute, and the delta base is unchanged */
            struct fr_md_custom_event_v4 ev = fr_md_get_custom_event_v4(p);
            tsc = ev.tsc;
            if (r->info.version >= 4)
                cpu = ev.cpu;
        }
        const uint8_t *data = need(r, next, (size_t)size);
        if (!data)
            return cut_short(r, off, kind == FR_MD_TYPED_EVENT ? "a typed event" : "a custom event");
        fr_record_kind rk = kind == FR_MD_TYPED_EVENT ? FR_REC_TYPED : FR_REC_CUSTOM;
        uint32_t envelope = 0;
        if (rk == FR_REC_CUSTOM && (type = fr_te_enveloped_type(data, (size_t)size)) != 0) {
            /* one of our records (fr_format.h): returned as its FR_TE type */
            rk = FR_REC_TYPED;
            envelope = sizeof(struct fr_te_envelope);
        }
        fill_thread(r, out, rk, off);
        out->tsc = tsc;
        out->cpu = cpu;
        out->event_type = type;
        out->data = data + envelope;
        out->size = (uint32_t)size - envelope;
        out->envelope = envelope;
        r->pos = next + (uint64_t)size;
        *produced = true;
        if (rk == FR_REC_TYPED && type == FR_TE_EVENT_SITE)
            keep_site(r, out->data, out->size);
        if (rk == FR_REC_TYPED && type == FR_TE_EVENT_RUN) {
            /* its events are returned one by one (run_event), from the next call on */
            r->run_start = r->run_next = next + envelope;
            r->run_end = next + (uint64_t)size;
            r->run_envelope = envelope;
            r->run_index = 0;
            r->run_tsc0 = r->run_tsc = tsc;
            r->run_type = kind == FR_MD_TYPED_EVENT ? type : 0;
            r->st = IN_RUN;
            *produced = false;
        }
        return FR_READ_OK;
    }
    case FR_MD_NEW_BUFFER:
    case FR_MD_WALLTIME_MARKER:
    case FR_MD_PID:
    case FR_MD_BUFFER_EXTENTS:
        return fail(r, off, "expected a function, event, NewCPUId or TSCWrap record, found %s "
                            "inside the block that begins at offset %llu (its extents end at "
                            "offset %llu)",
                    metadata_name(kind), (unsigned long long)r->block_start,
                    (unsigned long long)r->block_end);
    default:
        return fail(r, off, "expected a metadata record kind 0..9, found %u", kind);
    }
    r->pos = next;
    return FR_READ_OK;
}

static fr_read_status fdr_function(fr_reader *r, fr_record *out, const uint8_t *p, uint64_t off)
{
    if (r->st != IN_BODY) {
        const char *want = r->st == WANT_NEW_BUFFER ? "a NewBuffer record to begin the block"
                         : r->st == WANT_WALLTIME   ? "a WalltimeMarker record after NewBuffer"
                         : r->st == WANT_PID_OR_CPU ? "a Pid or NewCPUId record to end the block's preamble"
                                                    : "a NewCPUId record to end the block's preamble";
        return fail(r, off, "expected %s, found a function record", want);
    }
    uint32_t word = fr_fn_get_word(p);
    unsigned kind = fr_fn_kind(word);
    if (kind > FR_FN_ENTER_ARG)
        return fail(r, off, "expected a function record kind 0..3, found %u", kind);
    uint32_t delta = fr_fn_get_delta(p);   /* p may move with the window below */
    r->tsc += delta;
    fill_thread(r, out, (fr_record_kind)kind, off);
    out->function_id = fr_fn_id(word);
    r->pos = off + FR_XRAY_FUNCTION_RECORD_SIZE;
    r->after_function = true;
    if (kind == FR_FN_ENTER_ARG && r->block_end - r->pos >= FR_XRAY_METADATA_SIZE) {
        const uint8_t *a = need(r, r->pos, 1);
        bool more = a || r->io_error || r->info.version > 1;  /* v1: the file may end here */
        if (a && a[0] == FR_MD_BYTE0(FR_MD_CALL_ARGUMENT))
            a = need(r, r->pos, FR_XRAY_METADATA_SIZE);
        else if (a)
            more = false;   /* another record follows: this enter has no argument */
        if (a && more) {
            out->arg = fr_md_get_call_argument(a).arg;
            r->pos += FR_XRAY_METADATA_SIZE;
        } else if (more) {
            /* The file ends in the argument, or right before it where the block says
             * more follows: the enter is not returned without its argument. */
            r->tsc -= delta;
            return cut_short(r, off, "an enter record with its argument");
        }
    }
    return FR_READ_OK;
}

static fr_read_status fdr_next(fr_reader *r, fr_record *out)
{
    for (;;) {
        if (r->st == READ_CUT)
            return FR_READ_EOF;
        if (r->st == IN_RUN) {
            fr_read_status s = run_event(r, out);
            if (s != FR_READ_EOF)
                return s;
            continue;
        }
        if (r->st == BETWEEN_BLOCKS) {
            int b = begin_block(r);
            if (b <= 0)
                return b < 0 ? FR_READ_ERROR : FR_READ_EOF;
            continue;
        }
        uint64_t off = r->pos;
        if (off >= r->block_end) {
            fr_read_status s = end_block(r, out);
            if (s != FR_READ_EOF)
                return s;
            continue;
        }
        const uint8_t *p = need(r, off, 1);
        if (!p) {
            /* A version 1 buffer may be cut at a record boundary by the end of the file. */
            if (r->info.version == 1 && !r->io_error && r->st == IN_BODY) {
                r->block_end = off;
                continue;
            }
            return cut_short(r, off, r->st == IN_BODY ? "a block, between two records"
                                                       : "a block's preamble");
        }
        bool metadata = fr_is_metadata(p[0]);
        size_t size = metadata ? FR_XRAY_METADATA_SIZE : FR_XRAY_FUNCTION_RECORD_SIZE;
        if (r->block_end - off < size)
            return fail(r, off, "expected a %zu-byte %s record to fit in its block, which ends "
                                "at offset %llu", size, metadata ? "metadata" : "function",
                        (unsigned long long)r->block_end);
        p = need(r, off, size);
        if (!p)
            return cut_short(r, off, metadata ? "a 16-byte metadata record"
                                              : "an 8-byte function record");
        if (!metadata)
            return fdr_function(r, out, p, off);
        bool produced;
        fr_read_status s = fdr_metadata(r, out, p, off, &produced);
        if (s != FR_READ_OK || produced)
            return s;
    }
}

/* ------------------------------------------------------------------ basic mode */

static fr_read_status basic_next(fr_reader *r, fr_record *out)
{
    for (;;) {
        uint64_t off = r->pos;
        const uint8_t *p = need(r, off, 1);
        if (!p)
            return r->io_error ? truncated(r, off, "a record") : FR_READ_EOF;
        p = need(r, off, FR_BASIC_RECORD_SIZE);
        if (!p)
            return cut_short(r, off, "a 32-byte basic-mode record");
        struct fr_basic_record rec;
        memcpy(&rec, p, sizeof rec);
        uint16_t rtype = rec.record_type;
        int32_t tid = (int32_t)rec.tid, pid = (int32_t)rec.pid;
        if (rtype == FR_BASIC_ARGUMENT) {
            /* An argument record not folded into its enter record: llvm-xray appends it to
             * the previous record's arguments; one argument is kept, others skipped. */
            struct fr_basic_argument a;
            memcpy(&a, p, sizeof a);
            if (!r->have_thread || (uint32_t)a.function_id != r->last_fid || (int32_t)a.tid != r->tid)
                return fail(r, off, "expected an argument record to follow a record of the "
                                    "same function and thread");
            r->pos = off + FR_BASIC_RECORD_SIZE;
            continue;
        }
        if (rtype != FR_BASIC_FUNCTION)
            return fail(r, off, "expected a basic-mode record type 0 (function) or 1 "
                                "(argument), found %u", rtype);
        unsigned kind = rec.kind;
        if (kind > FR_FN_ENTER_ARG)
            return fail(r, off + offsetof(struct fr_basic_record, kind),
                        "expected a function record kind 0..3, found %u", kind);
        if (!r->block_announced && (!r->have_thread || tid != r->tid || pid != r->pid)) {
            /* Records of another thread begin: announce them as a block. */
            r->have_thread = true;
            r->tid = tid;
            r->pid = pid;
            r->cpu = rec.cpu;
            r->tsc = rec.tsc;
            r->block_start = off;
            r->block_announced = true;
            block_record(r, out);
            return FR_READ_OK;
        }
        r->block_announced = false;
        r->cpu = rec.cpu;
        r->tsc = rec.tsc;
        r->last_fid = (uint32_t)rec.function_id;
        fill_thread(r, out, (fr_record_kind)kind, off);
        out->function_id = r->last_fid & FR_XRAY_MAX_FUNCTION_ID;
        r->pos = off + FR_BASIC_RECORD_SIZE;
        if (kind == FR_FN_ENTER_ARG) {
            const uint8_t *a = need(r, r->pos, 1);
            if (a) {
                a = need(r, r->pos, FR_BASIC_RECORD_SIZE);
                if (!a)   /* the file ends inside the next record, maybe the argument */
                    return cut_short(r, off, "an enter record and the record after it");
            }
            struct fr_basic_argument arg;
            if (a)
                memcpy(&arg, a, sizeof arg);
            if (a && arg.record_type == FR_BASIC_ARGUMENT &&
                (uint32_t)arg.function_id == r->last_fid && (int32_t)arg.tid == tid) {
                out->arg = arg.arg;
                r->pos += FR_BASIC_RECORD_SIZE;
            }
        }
        return FR_READ_OK;
    }
}

/* The bytes at [off, off + n) if they are already in memory or in the window. */
static inline const uint8_t *peek(const fr_reader *r, uint64_t off, size_t n)
{
    if (r->ov)
        return NULL;   /* need() reads the hidden block's records */
    if (r->mem)
        return off <= r->info.file_size && n <= r->info.file_size - off ? r->mem + off : NULL;
    if (off >= r->win_off && off - r->win_off <= r->win_len && n <= r->win_len - (off - r->win_off))
        return r->win + (off - r->win_off);
    return NULL;
}

/* Everything but the fast path below; kept out of line so that the fast path stays a
 * small leaf function. */
static __attribute__((noinline)) fr_read_status next_slow(fr_reader *r, fr_record *out)
{
    if (r->failed)
        return FR_READ_ERROR;
    if (r->cut)
        return FR_READ_EOF;
    return r->info.type == FR_XRAY_TYPE_NAIVE ? basic_next(r, out) : fdr_next(r, out);
}

fr_read_status fr_reader_next(fr_reader *r, fr_record *out)
{
    /* Fast path for the common record, a plain function record inside a block (the
     * checks are those of fdr_next and fdr_function). */
    uint64_t off = r->pos;
    const uint8_t *p;
    if (r->st == IN_BODY && off < r->block_end && r->block_end - off >= FR_XRAY_FUNCTION_RECORD_SIZE &&
        (p = peek(r, off, FR_XRAY_FUNCTION_RECORD_SIZE)) && !fr_is_metadata(p[0])) {
        uint32_t word = fr_fn_get_word(p);
        unsigned kind = fr_fn_kind(word);
        if (kind <= FR_FN_TAIL_EXIT) {
            r->tsc += fr_fn_get_delta(p);
            fill_thread(r, out, (fr_record_kind)kind, off);
            out->function_id = fr_fn_id(word);
            r->pos = off + FR_XRAY_FUNCTION_RECORD_SIZE;
            r->after_function = true;
            return FR_READ_OK;
        }
    }
    return next_slow(r, out);
}

size_t fr_reader_function_bytes(fr_reader *r, const uint8_t **at, int32_t *tid, uint64_t *tsc)
{
    /* The checks of fr_reader_next's fast path, done once for the run of records that is
     * both inside the block and already in memory (or in the window). */
    if (r->st != IN_BODY || r->ov)
        return 0;
    uint64_t off = r->pos, end = r->block_end;
    if (r->mem) {
        if (end > r->info.file_size)
            end = r->info.file_size;       /* a version 1 buffer cut by the end of file */
        if (off >= end)
            return 0;
        *at = r->mem + off;
    } else {
        uint64_t win_end = r->win_off + r->win_len;
        if (end > win_end)
            end = win_end;
        if (off < r->win_off || off >= end)
            return 0;
        *at = r->win + (off - r->win_off);
    }
    *tid = r->tid;
    *tsc = r->tsc;
    return (size_t)((end - off) / FR_XRAY_FUNCTION_RECORD_SIZE);
}

void fr_reader_take_functions(fr_reader *r, size_t n, uint64_t tsc)
{
    if (n) {
        r->tsc = tsc;
        r->pos += n * FR_XRAY_FUNCTION_RECORD_SIZE;
        r->after_function = true;
    }
}

size_t fr_reader_next_functions(fr_reader *r, fr_function_record *out, size_t max,
                                int32_t *tid)
{
    /* Within the run of fr_reader_function_bytes, a record is taken while it is a plain
     * function record. */
    const uint8_t *p;
    uint64_t tsc;
    size_t n = fr_reader_function_bytes(r, &p, tid, &tsc);
    if (n > max)
        n = max;
    size_t i = 0;
    for (; i < n; i++, p += FR_XRAY_FUNCTION_RECORD_SIZE) {
        uint32_t word = fr_fn_get_word(p);
        if (!fr_fn_is_plain(word))   /* metadata, enter with argument, bad */
            break;
        tsc += fr_fn_get_delta(p);
        out[i].tsc = tsc;
        out[i].function_id = fr_fn_id(word);
        out[i].kind = fr_fn_kind(word);
    }
    fr_reader_take_functions(r, i, tsc);
    return i;
}
