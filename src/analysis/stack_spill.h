/*
 * stack_spill.h - every distinct stack of a trace in bounded memory: the calling-context
 * tree (stack_aggregate.h) is emptied into temporary files each time it is full
 * (fr_stack_agg_set_full), a run per tree, and the runs are merged at the end, so that
 * each distinct stack comes out once, with its figures added up over the runs and its
 * place in the whole tree's order (the order of nodes an unbounded tree would have had:
 * the run that first had it, its node's index there).
 *
 *     fr_stack_spill *sp = fr_stack_spill_new("convert");
 *     fr_stack_spill_attach(sp, sa, max_nodes);
 *     ... feed the trace ...
 *     if (fr_stack_spill_runs(sp)) {            // the tree was full at least once
 *         fr_stack_spill_last_run(sp, sa);      // the rest; the tree's memory is given back
 *         fr_stack_spill_by_creation(sp, fn, ctx);
 *     }
 *
 * A run is the tree's nodes in path order (a depth-first walk, children by function id:
 * a stack before the stacks it calls, paths compared id by id), 40 bytes a node, and
 * beside it each node's parent and function id (8 bytes), so that a stack's path can be
 * found again from its place. Memory: the tree (max_nodes), then a buffer per run while
 * merging, then one run's parents and figures while writing in creation order. Disk: 48
 * bytes a node of each run, plus 32 a distinct stack for fr_stack_spill_by_creation.
 * The files are in $TMPDIR (or /tmp), unlinked from the start (O_TMPFILE, else mkstemp
 * and unlink): nothing is left behind, nobody else opens them. A write or read that fails
 * (a full disk, ulimit -f) is said ("flightrec COMMAND: ...: No space left on device")
 * and the process exits with status 1; so is a run that would leave its file system less
 * than a reserve (1% of it, at least 16 MiB, at most 1 GiB).
 */
#ifndef FLIGHTREC_STACK_SPILL_H
#define FLIGHTREC_STACK_SPILL_H

#include <stddef.h>
#include <stdint.h>
#include "stack_aggregate.h"

typedef struct fr_stack_spill fr_stack_spill;

/* One distinct stack of the whole trace. */
typedef struct fr_spilled_stack {
    const uint32_t *path;      /* function ids root first, as fr_stack_agg_path gives them */
    uint32_t len;
    uint64_t calls, total_ticks, self_ticks;
    uint64_t order;            /* its node's place in the whole tree: run << 32 | index */
} fr_spilled_stack;
typedef void (*fr_spilled_fn)(const fr_spilled_stack *s, void *ctx);

/* command names the messages' speaker. */
fr_stack_spill *fr_stack_spill_new(const char *command);
void fr_stack_spill_free(fr_stack_spill *sp);
/* A failure is said on descriptor fd (2 by default). */
void fr_stack_spill_say_to(fr_stack_spill *sp, int fd);
/* fr_stack_agg_set_full(sa, max_nodes, fr_stack_spill_on_full, sp). */
void fr_stack_spill_attach(fr_stack_spill *sp, fr_stack_agg *sa, size_t max_nodes);
/* The fr_stack_full_fn (ctx = the fr_stack_spill): writes the tree as a run. */
void fr_stack_spill_on_full(fr_stack_agg *sa, void *ctx);
/* Runs written so far. */
size_t fr_stack_spill_runs(const fr_stack_spill *sp);
/* Writes the tree as the last run, then drops its nodes (fr_stack_agg_release). */
void fr_stack_spill_last_run(fr_stack_spill *sp, fr_stack_agg *sa);
/* Every distinct stack once, in path order (a stack before the stacks it calls, and
 * all of those before its next sibling: a depth-first walk of the whole tree). */
void fr_stack_spill_merge(fr_stack_spill *sp, fr_spilled_fn fn, void *ctx);
/* Every distinct stack once, in the whole tree's node order (`order`). */
void fr_stack_spill_by_creation(fr_stack_spill *sp, fr_spilled_fn fn, void *ctx);
/* The path of the stack at `order` into ids[0..cap-1]; returns its length (which may
 * exceed cap, as fr_stack_agg_path). A few reads of the file per frame: for a few stacks. */
uint32_t fr_stack_spill_path(fr_stack_spill *sp, uint64_t order, uint32_t *ids, uint32_t cap);

#endif
