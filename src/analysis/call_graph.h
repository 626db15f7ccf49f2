/*
 * call_graph.h - caller -> callee edges of completed calls, with the number of calls and
 * their total time (what `flightrec graph` draws; the nodes come from func_stats).
 * A root call (depth 0) has no edge. Memory grows with the number of distinct edges.
 */
#ifndef FLIGHTREC_CALL_GRAPH_H
#define FLIGHTREC_CALL_GRAPH_H

#include <stddef.h>
#include <stdint.h>
#include "call_tracker.h"

typedef struct fr_call_edge {
    uint32_t caller, callee;   /* function ids */
    uint64_t calls;
    uint64_t total_ticks;      /* sum of the callee's call durations under this caller */
    uint64_t self_ticks;       /* sum of the callee's self times under this caller */
} fr_call_edge;

typedef struct fr_call_graph fr_call_graph;

fr_call_graph *fr_call_graph_new(void);
void fr_call_graph_free(fr_call_graph *g);
void fr_call_graph_add(fr_call_graph *g, const fr_call *call);
void fr_call_graph_on_call(const fr_call *call, void *ctx);   /* fr_call_fn adapter */
/* Edges in order of first appearance. */
size_t fr_call_graph_count(const fr_call_graph *g);
const fr_call_edge *fr_call_graph_at(const fr_call_graph *g, size_t i);
const fr_call_edge *fr_call_graph_find(const fr_call_graph *g, uint32_t caller, uint32_t callee);

#endif
