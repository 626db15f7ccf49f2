/*
 * perf_order.h - the samples of a perf.data file in time order, in bounded memory.
 *
 * `perf record` writes each CPU's ring buffer in turn, so a file's samples are in time
 * order per CPU, not overall. It marks with FINISHED_ROUND each time it has emptied all
 * the ring buffers: every sample written after the marker N is newer than the newest
 * sample written before the marker N-1 (a ring read in round N may still hold samples
 * older than those of other rings read in round N-1, never older than round N-1's
 * start). So at marker N the queue can give, in time order, every sample no newer than
 * the newest one seen by marker N-1; perf's own tools sort the same way.
 *
 * Samples are copied in (their raw bytes included) and given back one at a time, each
 * valid until the next call. Memory: what two rounds hold, capped at
 * FR_PERF_ORDER_MAX_BYTES; past the cap the oldest samples go out before their round
 * ends, and a sample older than one already given is counted (out_of_order) so the
 * reader can say the order is not exact. A file whose samples carry no time is given
 * in file order.
 */
#ifndef FLIGHTREC_PERF_ORDER_H
#define FLIGHTREC_PERF_ORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "perf_data.h"

#define FR_PERF_ORDER_MAX_BYTES (64u << 20)

typedef struct fr_perf_order fr_perf_order;

fr_perf_order *fr_perf_order_new(void);
void fr_perf_order_free(fr_perf_order *o);
/* A copy of s queued: 0, or -1 out of memory. */
int fr_perf_order_push(fr_perf_order *o, const fr_perf_sample *s);
/* A FINISHED_ROUND marker was read. */
void fr_perf_order_round(fr_perf_order *o);
/* The input ended: everything queued may go. */
void fr_perf_order_end(fr_perf_order *o);
/* The next sample that may go, in time order (then file order): 1 with *s filled in
 * (raw valid until the next call), 0 when none may go yet (or none is left after the
 * end). */
int fr_perf_order_pop(fr_perf_order *o, fr_perf_sample *s);
/* Samples given out older than one given before them (the cap was reached). */
uint64_t fr_perf_order_out_of_order(const fr_perf_order *o);

#endif
