/*
 * xray_layout.c - compiler-rt's FDR file layout for xray-fdr sessions (xray_layout.h).
 *
 * Why a hidden block: llvm-xray shows every custom event, so flightrec's metadata as
 * custom events (the normal layout) appears in `llvm-xray convert` before and between
 * the program's records, and a tool expecting compiler-rt's records sees events nobody
 * logged. llvm-xray reads a NewCPUId record's cpu and timestamp and ignores its last 5
 * bytes; a block whose body is NewCPUId records alone yields no record. So the metadata
 * records, byte for byte as in a normal metadata block, are cut into 15-byte pieces, each
 * the bytes 1..15 of a NewCPUId record, the last piece padded with zeros; the block is
 * thread 0's (no thread has id 0) with the usual preamble. The reader (fr_reader.c)
 * recognises it (thread 0, then a NewCPUId whose carried bytes begin a custom event with
 * flightrec's envelope) and reads the carried records as the metadata block.
 *
 * Async-signal-safe as the normal writer (a crash dump of an xray-fdr session): the
 * metadata goes to an anonymous file first (its size is needed for BufferExtents), then
 * is read back in pieces: memfd_create, write, pread, no allocation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "core/xray_layout.h"
#include "core/clock.h"
#include "core/thread_writer.h"
#include "core/buffer_records.h"
#include "core/buffer_pool.h"
#include "core/session.h"
#include "core/trace_out.h"
#include "core/metadata.h"

#define PIECE FR_MD_PAYLOAD_MAX   /* carried bytes per NewCPUId record: its payload */

static uint8_t meta_buf[16 * 1024];       /* the metadata's output buffer */
static uint8_t carried[PIECE * 512];      /* read back, a whole number of pieces */

static void hidden_metadata_block(struct fr_out *o, const struct fr_meta_figures_source *figures)
{
    int fd = memfd_create("flightrec-xray-metadata", MFD_CLOEXEC);
    if (fd < 0) {
        if (!o->error)
            o->error = errno;
        return;
    }
    struct fr_out m = { .fd = fd, .buf = meta_buf, .cap = sizeof meta_buf };
    struct fr_meta_writer w = { &m, figures };
    fr_meta_emit_all(&w);
    fr_out_flush(&m);
    if (m.error) {
        if (!o->error)
            o->error = m.error;
        close(fd);
        return;
    }
    uint64_t size = m.offset, pieces = (size + PIECE - 1) / PIECE;
    uint8_t pre[FR_BUFFER_PREAMBLE];
    fr_buffer_put_preamble(pre, 0, 0, fr_clock.base_tsc + 1);
    fr_out_extents(o, sizeof pre + pieces * FR_XRAY_METADATA_SIZE);
    fr_out_put(o, pre, sizeof pre);
    for (uint64_t at = 0; at < size && !o->error;) {
        size_t want = size - at < sizeof carried ? (size_t)(size - at) : sizeof carried;
        ssize_t n = pread(fd, carried, want, (off_t)at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            o->error = n < 0 ? errno : EIO;
            break;
        }
        for (size_t k = 0; k < (size_t)n; k += PIECE) {
            uint8_t rec[FR_XRAY_METADATA_SIZE];
            fr_md_put(rec, FR_MD_NEW_CPU_ID, carried + k,
                      (size_t)n - k < PIECE ? (size_t)n - k : PIECE);
            fr_out_put(o, rec, sizeof rec);
        }
        at += (uint64_t)n;
    }
    close(fd);
}

int fr_xray_layout_write(struct fr_out *o, const struct fr_meta_figures_source *figures)
{
    fr_out_header(o);
    hidden_metadata_block(o, figures);
    uint32_t nthreads = __atomic_load_n(&fr_pool.nthreads, __ATOMIC_ACQUIRE);
    if (nthreads > FR_MAX_THREADS)
        nthreads = FR_MAX_THREADS;
    uint32_t nslots, nsorted = fr_pool_sort_for_file(nthreads, &nslots);
    const uint32_t *sorted = fr_pool.scratch, *slots = fr_pool.scratch + fr_pool.ndesc;
    for (uint32_t s = 0; s < nthreads && !o->error; s++) {
        uint32_t ns, first;
        if (!fr_pool_tid_first(slots, nslots, s, &first, &ns))
            continue;   /* unused, or a tid the kernel reused: out with its first slot's */
        int32_t tid = fr_pool.threads[s].tid;
        uint32_t n, at = fr_pool_buffers_of(sorted, nsorted, tid, &n);
        const uint32_t *idx = sorted + at;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t used = __atomic_load_n(&fr_pool.bufs[idx[i]].used, __ATOMIC_RELAXED);
            fr_out_extents(o, used);
            fr_out_put(o, fr_pool_buffer(idx[i]), used);
        }
    }
    fr_out_flush(o);
    return o->error;
}
