/*
 * events_decode_robust_test.c - the EventHeader decoder on damaged input: every record of
 * the reference corpus cut at every length, and with every byte replaced by 0x00, 0xFF,
 * 0x80 and 0x7F, must decode or be refused with a message, never read out of bounds
 * (run under ASan in CI) or loop. Also: deep struct nesting is refused.
 * usage: events_decode_robust_test CORPUS.dat
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eventheader_decode.h"

static FILE *sink;
static unsigned long decoded, refused;

static void try_decode(const char *name, const uint8_t *data, size_t size)
{
    /* A private copy of exactly `size` bytes, so ASan sees any read past the end. */
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    fr_eh_event ev;
    char err[256] = "";
    if (fr_eh_decode(name, copy, size, &ev, err, sizeof err) == 0 &&
        fr_eh_write_event_json(&ev, sink, err, sizeof err) == 0) {
        decoded++;
    } else {
        if (!err[0]) {
            fprintf(stderr, "FAIL: refused without a message (%s, %zu bytes)\n", name, size);
            exit(1);
        }
        refused++;
    }
    free(copy);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS.dat\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static uint8_t file[1 << 20];
    size_t size = fread(file, 1, sizeof file, f);
    fclose(f);
    sink = fopen("/dev/null", "w");

    unsigned records = 0;
    for (size_t off = 0; off + 4 <= size;) {
        uint32_t rec = (uint32_t)file[off] | (uint32_t)file[off + 1] << 8 |
                       (uint32_t)file[off + 2] << 16 | (uint32_t)file[off + 3] << 24;
        if (rec < 5 || off + rec > size) {
            fprintf(stderr, "FAIL: corpus record at %zu\n", off);
            return 1;
        }
        const char *name = (const char *)file + off + 4;
        size_t name_len = strnlen(name, rec - 4);
        const uint8_t *ev = file + off + 4 + name_len + 1;
        size_t ev_size = rec - 4 - name_len - 1;
        uint8_t buf[4096];
        memcpy(buf, ev, ev_size);
        for (size_t cut = 0; cut <= ev_size; cut++)
            try_decode(name, ev, cut);
        static const uint8_t values[] = {0x00, 0xFF, 0x80, 0x7F};
        for (size_t i = 0; i < ev_size; i++) {
            for (size_t v = 0; v < sizeof values; v++) {
                buf[i] = values[v];
                try_decode(name, buf, ev_size);
            }
            buf[i] = ev[i];
        }
        records++;
        off += rec;
    }

    /* 40 nested structs of one member each: refused, not a stack overflow. */
    uint8_t deep[8 + 4 + 6 + 40 * 4 + 8];
    size_t n = 0;
    memcpy(deep, "\x07\x00\x00\x00\x00\x00\x00\x05", 8);
    n = 12;
    memcpy(deep + n, "Deep\0", 5);
    n += 5;
    for (int i = 0; i < 40; i++) {
        memcpy(deep + n, "s\0\x81\x01", 4);
        n += 4;
    }
    memcpy(deep + n, "v\0\x02", 3);
    n += 3;
    deep[8] = (uint8_t)(n - 12);
    deep[9] = 0;
    deep[10] = 1;
    deep[11] = 0;
    deep[n++] = 7;   /* the value */
    fr_eh_event e;
    char err[256] = "";
    if (fr_eh_decode("P_L5K0", deep, n, &e, err, sizeof err) != 0 ||
        fr_eh_write_event_json(&e, sink, err, sizeof err) == 0 || !strstr(err, "deeper")) {
        fprintf(stderr, "FAIL: deep nesting not refused (%s)\n", err);
        return 1;
    }
    fclose(sink);
    printf("%u records: %lu variants decoded, %lu refused with a message\n", records, decoded,
           refused);
    return records == 374 ? 0 : 1;
}
