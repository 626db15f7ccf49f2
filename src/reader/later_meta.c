/*
 * later_meta.c - see later_meta.h.
 */
#include "later_meta.h"

#include <stdlib.h>
#include <string.h>
#include "fdr_records.h"
#include "pread_all.h"

/* A metadata block larger than this is not read ahead (the final block of a program of
 * 100,000 functions is about 5 MB). */
#define LATER_META_MAX (256u << 20)

/* len bytes at offset off of the file (its bytes in memory, or fd) into buf: 0 or -1. */
static int read_at(const uint8_t *file, int fd, void *buf, size_t len, uint64_t off)
{
    if (!file)
        return fr_pread_all(fd, buf, len, off);
    memcpy(buf, file + off, len);
    return 0;
}

/* Feeds the typed records of thread 0 of the block of len bytes at offset off. */
static void feed_block(fr_trace_meta *m, const uint8_t *file, int fd, uint64_t off, size_t len)
{
    size_t header = sizeof(struct fr_xray_file_header);
    uint8_t *copy = malloc(header + len);   /* the reader wants the file's header first */
    if (!copy)
        return;
    char err[256];
    fr_reader *r = NULL;
    if (read_at(file, fd, copy, header, 0) == 0 && read_at(file, fd, copy + header, len, off) == 0)
        r = fr_reader_open_memory(copy, header + len, "metadata", err, sizeof err);
    if (r) {
        fr_record rec;
        while (fr_reader_next(r, &rec) == FR_READ_OK)
            if (rec.tid == 0 && rec.kind == FR_REC_TYPED)
                fr_trace_meta_feed(m, &rec);
        fr_reader_close(r);
    }
    free(copy);
}

void fr_trace_meta_feed_later_blocks(fr_trace_meta *m, const uint8_t *file, int fd,
                                     uint64_t size, uint64_t from)
{
    uint64_t off = sizeof(struct fr_xray_file_header);
    const uint64_t md = FR_XRAY_METADATA_SIZE;
    while (off <= size && size - off >= 2 * md) {
        uint8_t head[2 * FR_XRAY_METADATA_SIZE];   /* BufferExtents, NewBuffer */
        if (read_at(file, fd, head, sizeof head, off) < 0 ||
            head[0] != FR_MD_BYTE0(FR_MD_BUFFER_EXTENTS))
            return;
        uint64_t n = fr_md_get_buffer_extents(head).size;
        if (n < md || n > size - off - md)
            return;   /* cut short (a file still being written) or damaged */
        const uint8_t *first = head + md;
        if (off >= from && first[0] == FR_MD_BYTE0(FR_MD_NEW_BUFFER) &&
            fr_md_get_new_buffer(first).tid == 0 && md + n <= LATER_META_MAX)
            feed_block(m, file, fd, off, (size_t)(md + n));
        off += md + n;
    }
}
