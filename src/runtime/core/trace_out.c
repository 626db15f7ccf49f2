/*
 * trace_out.c - a trace file's bytes through a fixed output buffer over write(2) (no
 * malloc, no stdio, no lock: async-signal-safe), and the records every file starts with:
 * the file header, the metadata block and its event sink (trace_out.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "core/buffer_pool.h"
#include "core/clock.h"
#include "core/recorder.h"
#include "core/session.h"
#include "core/trace_out.h"
#include "fdr_records.h"
#include "fr_format.h"

static void write_all(struct fr_out *o, const uint8_t *p, size_t len)
{
    while (len && !o->error) {
        ssize_t n = write(o->fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            o->error = errno;
            return;
        }
        if (n == 0) {
            o->error = EIO;
            return;
        }
        p += n;
        len -= (size_t)n;
    }
}

void fr_out_flush(struct fr_out *o)
{
    write_all(o, o->buf, o->len);
    o->len = 0;
}

void fr_out_put(struct fr_out *o, const void *data, size_t len)
{
    o->offset += len;
    if (o->len + len > o->cap) {
        fr_out_flush(o);
        if (len >= o->cap) { /* big pieces (whole buffers) go straight out */
            write_all(o, data, len);
            return;
        }
    }
    memcpy(o->buf + o->len, data, len);
    o->len += len;
}

void fr_out_patch(struct fr_out *o, uint64_t offset, const void *data, size_t len)
{
    uint64_t buffered_from = o->offset - o->len;
    if (offset >= buffered_from) {
        memcpy(o->buf + (offset - buffered_from), data, len);
        return;
    }
    const uint8_t *p = data;
    while (len && !o->error) {
        ssize_t n = pwrite(o->fd, p, len, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            o->error = n < 0 ? errno : EIO;
            return;
        }
        p += n;
        len -= (size_t)n;
        offset += (uint64_t)n;
    }
}

void fr_out_extents(struct fr_out *o, uint64_t n)
{
    uint8_t rec[FR_XRAY_METADATA_SIZE];
    fr_md_put_buffer_extents(rec, (struct fr_md_buffer_extents){ n });
    fr_out_put(o, rec, sizeof rec);
}

/* The header of one of our records (fr_format.h, "flightrec records"): an XRay custom
 * event with delta 0 whose payload is the envelope then `size` bytes (which follow). */
void fr_out_te_header(struct fr_out *o, uint16_t type, size_t size)
{
    uint8_t hdr[FR_ENVELOPED_HEADER_SIZE];
    fr_te_header_put(hdr, type, size, 0);
    fr_out_put(o, hdr, sizeof hdr);
}

void fr_meta_emit_iov(struct fr_meta_writer *w, uint16_t type, const struct iovec *iov, int iovcnt)
{
    size_t size = 0;
    for (int i = 0; i < iovcnt; i++)
        size += iov[i].iov_len;
    fr_out_te_header(w->out, type, size);
    for (int i = 0; i < iovcnt; i++)
        fr_out_put(w->out, iov[i].iov_base, iov[i].iov_len);
}

void fr_meta_emit_str16(fr_meta_writer *w, uint16_t type, const void *fixed, size_t fixed_size,
                        const char *str, size_t max)
{
    size_t n = 0;
    if (str)
        while (n < max && n < UINT16_MAX && str[n])
            n++;
    uint16_t n16 = (uint16_t)n;
    struct iovec v[3] = { { (void *)fixed, fixed_size }, { &n16, 2 }, { (void *)str, n } };
    fr_meta_emit_iov(w, type, v, 3);
}

void fr_meta_emit(fr_meta_writer *w, uint16_t type, const void *payload, size_t size)
{
    struct iovec v = { (void *)payload, size };
    fr_meta_emit_iov(w, type, &v, 1);
}

void fr_out_header(struct fr_out *o)
{
    struct fr_xray_file_header h = {
        .version = FR_XRAY_VERSION_FDR,
        .type = FR_XRAY_TYPE_FDR,
        .flags = fr_clock.flags,
        .cycle_frequency = fr_clock.ticks_per_second,
        .buffer_size = fr_pool.buffer_size,
    };
    fr_out_put(o, &h, sizeof h);
}

/* The metadata block's preamble: tid 0, cpu 0, at timestamp 1. */
void fr_out_metadata_preamble(struct fr_out *o)
{
    int64_t sec;
    int32_t usec;
    fr_clock_walltime(1, &sec, &usec);
    uint8_t pre[FR_BUFFER_PREAMBLE];
    fr_preamble_put(pre, 0, (struct fr_md_walltime){ sec, usec }, fr_session.pid, 0, 1);
    fr_out_put(o, pre, sizeof pre);
}


/* Two passes over the records, the first only counting, so that the block goes out in
 * order with its true size and nothing is patched afterwards: a reader following a
 * streamed file never meets a BufferExtents that is still 0. (The counting pass has no
 * descriptor: its one write fails with EBADF and is ignored.) */
void fr_out_metadata_block(struct fr_out *o, void (*emit)(struct fr_meta_writer *))
{
    static uint8_t none[1];
    struct fr_out count = { .fd = -1, .buf = none, .offset = o->offset + FR_XRAY_METADATA_SIZE };
    uint64_t body = count.offset;
    fr_out_metadata_preamble(&count);
    struct fr_meta_writer cw = { .out = &count };
    emit(&cw);
    fr_out_extents(o, count.offset - body);
    fr_out_metadata_preamble(o);
    struct fr_meta_writer w = { .out = o };
    emit(&w);
}
