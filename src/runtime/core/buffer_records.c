/*
 * buffer_records.c - the records in a buffer's bytes (buffer_records.h): the preamble each
 * buffer starts with, and how far a copy of a buffer holds whole records.
 */
#include <string.h>
#include "core/buffer_records.h"
#include "core/clock.h"
#include "core/session.h"
#include "fdr_records.h"
#include "fr_block.h"
#include "fr_format.h"

/* The four metadata records every buffer starts with (FR_BUFFER_PREAMBLE bytes). */
void fr_buffer_put_preamble(uint8_t *p, int32_t tid, uint16_t cpu, uint64_t tsc)
{
    uint64_t rel = tsc - fr_clock.base_tsc;
    int64_t sec;
    int32_t usec;
    fr_clock_walltime(rel, &sec, &usec);
    fr_preamble_put(p, tid, (struct fr_md_walltime){ sec, usec }, fr_session.pid, cpu, rel);
}

uint64_t fr_buffer_whole_records(uint8_t *buf, uint64_t used)
{
    uint64_t off = FR_BUFFER_PREAMBLE;
    while (off < used) {
        uint8_t b = buf[off];
        if (!fr_is_metadata(b)) {
            off += FR_XRAY_FUNCTION_RECORD_SIZE;
            continue;
        }
        unsigned kind = fr_md_kind(b);
        if (kind != FR_MD_CUSTOM_EVENT && kind != FR_MD_TYPED_EVENT) {
            off += FR_XRAY_METADATA_SIZE;
            continue;
        }
        int32_t sz = fr_md_get_event_size(buf + off);
        uint64_t body = off + FR_XRAY_METADATA_SIZE;
        if (sz >= 0 && body + (uint64_t)sz <= used) {
            off = body + (uint64_t)sz;
            continue;
        }
        /* A run still growing when `used` was read: keep the entries below used. */
        if (kind == FR_MD_CUSTOM_EVENT && body < used && used - body > sizeof(struct fr_te_envelope) &&
            fr_te_enveloped_type(buf + body, used - body) == FR_TE_EVENT_RUN) {
            fr_md_set_event_size(buf + off, (int32_t)(used - body));
            return used;
        }
        return off;
    }
    return off < used ? off : used;
}

/* The entries of an event run's payload (after its envelope): key, time delta and size
 * varints, then `size` bytes (fr_record_event_entry). */
static uint64_t run_entries(const uint8_t *p, const uint8_t *end)
{
    uint64_t n = 0;
    while (p < end) {
        uint64_t key, delta, size;
        size_t len = fr_run_entry_get(p, end, &key, &delta, &size);
        if (!len)
            break;
        p += len;
        n++;
    }
    return n;
}

uint64_t fr_buffer_count_records(const uint8_t *buf, uint64_t used)
{
    uint64_t n = 0, off = FR_BUFFER_PREAMBLE;
    while (off < used) {
        uint8_t b = buf[off];
        if (!fr_is_metadata(b)) {
            n++;
            off += FR_XRAY_FUNCTION_RECORD_SIZE;
            continue;
        }
        unsigned kind = fr_md_kind(b);
        off += FR_XRAY_METADATA_SIZE;
        if (kind != FR_MD_CUSTOM_EVENT && kind != FR_MD_TYPED_EVENT)
            continue;
        int32_t sz = fr_md_get_event_size(buf + off - FR_XRAY_METADATA_SIZE);
        if (sz < 0 || (uint64_t)sz > used - off)
            break;
        const uint8_t *body = buf + off;
        if (kind == FR_MD_CUSTOM_EVENT && (size_t)sz > sizeof(struct fr_te_envelope) &&
            fr_te_enveloped_type(body, (size_t)sz) == FR_TE_EVENT_RUN)
            n += run_entries(body + sizeof(struct fr_te_envelope), body + sz);
        else
            n++;
        off += (uint64_t)sz;
    }
    return n;
}
