/*
 * reader_cut_check.c TRACE WORKFILE - a trace cut at every offset is read up to the cut.
 *
 * The records of the whole file, each with the offset where it ends (the reader's
 * position right after returning it), are read once. Then WORKFILE, a copy of TRACE, is
 * shortened one byte at a time (a real regular file, as a crash or a full disk leaves it)
 * and read again, record by record and in batches (fr_reader_next_functions): the reader
 * must return exactly the records of the whole file that end at or before the cut, then
 * FR_READ_EOF (never an error), and report a truncation unless the cut falls where a
 * block ends (found here by walking the BufferExtents, not by the reader); the offset it
 * reports lies between the end of the last record returned and the cut. A cut inside the
 * 32-byte header is refused at open. Prints the number of cuts; exit 1 on any mismatch.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fr_reader.h"

typedef struct rec {
    fr_record_kind kind;
    int32_t tid;
    uint32_t function_id;
    uint64_t tsc, arg, offset, end;
    uint16_t event_type;
    uint32_t size;
} rec;

static int failures;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            if (failures++ < 20) {                                                         \
                fprintf(stderr, "FAIL: " __VA_ARGS__);                                     \
                fputc('\n', stderr);                                                       \
            }                                                                              \
        }                                                                                  \
    } while (0)

static void keep(rec *out, const fr_record *r, uint64_t end)
{
    *out = (rec){r->kind, r->tid, r->function_id, r->tsc, r->arg, r->offset, end,
                 r->event_type, r->size};
}

/* Reads the whole of r into out (at most max). With batch, plain function records come
 * from fr_reader_next_functions (their offsets and ends are then counted from the
 * position, as the batch gives none). Returns the count; *status gets the last status. */
static size_t read_records(fr_reader *r, bool batch, rec *out, size_t max, fr_read_status *status)
{
    size_t n = 0;
    for (;;) {
        if (batch) {
            fr_function_record fns[7];
            int32_t tid;
            uint64_t pos = fr_reader_position(r);
            size_t k = fr_reader_next_functions(r, fns, 7, &tid);
            for (size_t i = 0; i < k && n < max; i++, n++) {
                out[n] = (rec){(fr_record_kind)fns[i].kind, tid, fns[i].function_id, fns[i].tsc,
                               0, pos + 8 * i, pos + 8 * (i + 1), 0, 0};
            }
            if (k)
                continue;
        }
        fr_record r1;
        *status = fr_reader_next(r, &r1);
        if (*status != FR_READ_OK || n >= max)
            return n;
        keep(&out[n++], &r1, fr_reader_position(r));
    }
}

static bool same(const rec *a, const rec *b)
{
    return a->kind == b->kind && a->tid == b->tid && a->function_id == b->function_id &&
           a->tsc == b->tsc && a->arg == b->arg && a->offset == b->offset && a->end == b->end &&
           a->event_type == b->event_type && a->size == b->size;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: reader_cut_check TRACE WORKFILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static uint8_t data[1 << 20];
    size_t size = fread(data, 1, sizeof data, f);
    fclose(f);
    if (size < 64 || size == sizeof data) {
        fprintf(stderr, "%s: expected a small trace (64 bytes to 1 MiB), found %zu bytes\n",
                argv[1], size);
        return 1;
    }

    /* Where blocks end: the header, then each BufferExtents block (FDR v2+). */
    static bool boundary[1 << 20];
    size_t off = 32;
    boundary[off] = true;
    while (off + 16 <= size && data[off] == 0x0F) {
        uint64_t n;
        memcpy(&n, data + off + 1, 8);
        if (n > size - off - 16)
            break;
        off += 16 + n;
        boundary[off] = true;
    }
    if (off != size) {
        fprintf(stderr, "%s: expected whole FDR v2+ blocks up to the end, found one at offset "
                        "%zu\n", argv[1], off);
        return 1;
    }

    enum { MAX = 1 << 16 };
    static rec full[MAX], got[MAX];
    char err[512];
    fr_reader *r = fr_reader_open(argv[1], err, sizeof err);
    if (!r) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    fr_read_status st;
    size_t n_full = read_records(r, false, full, MAX, &st);
    CHECK(st == FR_READ_EOF && !fr_reader_truncation(r, NULL), "the whole file: status %d, %s",
          st, st == FR_READ_ERROR ? fr_reader_error(r) : "truncation reported");
    fr_reader_close(r);

    int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
        perror(argv[2]);
        return 1;
    }
    size_t cuts = 0, warned = 0;
    for (size_t cut = size; cut-- > 0;) {
        if (ftruncate(fd, (off_t)cut) != 0) {
            perror("ftruncate");
            return 1;
        }
        cuts++;
        size_t want = 0;
        while (want < n_full && full[want].end <= cut)
            want++;
        for (int batch = 0; batch < 2; batch++) {
            r = fr_reader_open(argv[2], err, sizeof err);
            if (cut < 32) {
                CHECK(!r && strstr(err, "offset"), "cut at %zu: opened, or no offset in '%s'", cut,
                      err);
                fr_reader_close(r);
                continue;
            }
            if (!r) {
                CHECK(0, "cut at %zu: %s", cut, err);
                continue;
            }
            size_t n = read_records(r, batch, got, MAX, &st);
            CHECK(st == FR_READ_EOF, "cut at %zu (batch %d): status %d: %s", cut, batch, st,
                  fr_reader_error(r));
            CHECK(n == want, "cut at %zu (batch %d): %zu records, the whole file has %zu "
                             "ending by then", cut, batch, n, want);
            for (size_t i = 0; i < n && i < want; i++)
                if (!same(&got[i], &full[i])) {
                    CHECK(0, "cut at %zu (batch %d): record %zu (offset %" PRIu64 ") differs", cut,
                          batch, i, full[i].offset);
                    break;
                }
            uint64_t at = 0;
            const char *msg = fr_reader_truncation(r, &at);
            if (boundary[cut]) {
                CHECK(!msg, "cut at block boundary %zu: truncation reported: %s", cut, msg);
            } else {
                uint64_t last_end = want ? full[want - 1].end : 32;
                CHECK(msg && strstr(msg, argv[2]) && at >= last_end && at <= cut,
                      "cut at %zu: truncation %s at %" PRIu64 " (last record ends at %" PRIu64
                      ")", cut, msg ? msg : "not reported", at, last_end);
                warned += batch == 0 && msg;
            }
            fr_reader_close(r);
        }
    }
    close(fd);
    printf("%zu records; %zu cuts, %zu reported as truncated; %d failures\n", n_full, cuts, warned,
           failures);
    return failures ? 1 : 0;
}
