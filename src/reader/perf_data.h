/*
 * perf_data.h - a streaming reader of the perf.data files `perf record` writes, in both
 * of their shapes: file mode (a header naming the sections; the event formats and the
 * clock data are header features stored after the data) and pipe mode (`perf record -o -`:
 * a 16-byte header, then a stream in which attributes, the tracing data and the
 * features travel as records before the samples that need them).
 *
 * It returns the samples of tracepoints one at a time, each with its tracepoint's format
 * (tracefs_format.h), its time, CPU, pid and tid, in time order (perf writes each CPU's
 * ring buffer in turn; the samples are sorted round by round, perf_order.h), each once:
 * a sample perf record wrote twice through its ring-buffer read race is left out and
 * counted (perf_reread.h). Memory is
 * bounded whatever the file's length: the samples of two rounds (at most 64 MiB), each
 * CPU's last sample (at most 16 MiB in all), plus the attributes, the sample ids and the
 * formats of the events the file holds, each capped.
 *
 * Little-endian files only (what x86-64 and arm64 hosts write); a big-endian one is
 * refused by name. Every error names the byte offset where the file stops making sense;
 * the samples before it have been returned.
 */
#ifndef FLIGHTREC_PERF_DATA_H
#define FLIGHTREC_PERF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracefs_format.h"

typedef struct fr_perf fr_perf;

typedef struct fr_perf_sample {
    uint64_t offset;                    /* of the sample's record in the file */
    const fr_tp_format *format;         /* NULL: the file holds no format for its id */
    uint64_t tracepoint_id;             /* perf_event_attr.config */
    bool     has_time, has_cpu, has_tid;
    uint64_t time;                      /* ns, on the clock of fr_perf_clock */
    uint32_t cpu, pid, tid;
    const uint8_t *raw;                 /* the tracepoint's bytes (common fields first); */
    uint32_t raw_size;                  /* valid until the next call */
} fr_perf_sample;

/* Reads the header (and in file mode the attributes and the features) from fd, which
 * the reader then owns (closed by fr_perf_close). name prefixes nothing; it is kept for
 * messages. A pipe-mode stream may come from a pipe; a file-mode one needs a seekable
 * descriptor. Returns NULL with "byte N: why" in err. */
fr_perf *fr_perf_open(int fd, char *err, size_t errlen);
/* The next tracepoint sample: 1, 0 at the end of the data, -1 with "byte N: why" in err
 * (a file cut short, a record that cannot be). Samples of events that are not
 * tracepoints (cycles, the dummy event) are skipped. */
int fr_perf_next(fr_perf *p, fr_perf_sample *s, char *err, size_t errlen);
/* Warnings to show once the reading is done (NULL if none): a file whose header was
 * never completed (perf record did not end; read to its end, without its features);
 * samples printed out of time order (a round larger than the sorting cap). */
const char *fr_perf_warning(fr_perf *p);
/* A note to show once the reading is done (NULL if none): how many samples were left
 * out as perf record's re-read copies (perf_reread.h), and why. */
const char *fr_perf_note(fr_perf *p);

/* The clock of the samples' times. clockid: the attributes' (perf record -k), -1 when
 * perf's own clock (the kernel's local clock; seconds since boot on every system we
 * know). has_wall: the file's clock data gives the wall time of one instant of that
 * clock, so time + wall_offset_ns is nanoseconds since 1970 (UTC). */
typedef struct fr_perf_clock {
    int      clockid;
    bool     has_wall;
    int64_t  wall_offset_ns;
} fr_perf_clock;
/* Valid after fr_perf_open for file mode; in pipe mode the clock data arrives as a
 * feature record before the first sample, so ask after the first fr_perf_next. */
fr_perf_clock fr_perf_clock_of(const fr_perf *p);
bool fr_perf_pipe_mode(const fr_perf *p);
void fr_perf_close(fr_perf *p);

#endif
