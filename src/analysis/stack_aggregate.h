/*
 * stack_aggregate.h - unique call stacks of completed calls, as a tree (a calling-context
 * tree): one node per distinct path root -> ... -> function, with the number of calls
 * that ran with exactly that stack and their total and self time.
 * Used by `flightrec stack`, and by folded stacks / flame graphs (`convert`): a node's
 * folded line is its path joined by ';' and its self time.
 *
 * Feed it from a call tracker with both callbacks:
 *     fr_stack_agg *sa = fr_stack_agg_new();
 *     fr_call_tracker *t = fr_call_tracker_new(fr_stack_agg_on_call, fr_stack_agg_on_enter, sa);
 * The enter callback finds each new frame's node from its parent's (one hash lookup per
 * call, whatever the depth). Calls fed without their enter still work: the node is then
 * found by walking the stack from the root.
 * Memory grows with the number of distinct stacks (53 to 75 bytes each), never with the
 * number of records; fr_stack_agg_set_limit bounds it by merging stacks, and
 * fr_stack_agg_set_full by handing the tree over when full (stack_spill.h writes it to
 * disk). Time: one hash lookup per call.
 */
#ifndef FLIGHTREC_STACK_AGGREGATE_H
#define FLIGHTREC_STACK_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "call_tracker.h"

#define FR_STACK_ROOT UINT32_MAX   /* parent of the nodes of depth 0 */
/* function_id of an "other" node: the stacks merged once the limit is reached */
#define FR_STACK_OTHER UINT32_MAX
/* function_id of a "deeper" node: the calls below the depth limit (fr_stack_agg_set_max_depth) */
#define FR_STACK_DEEPER (UINT32_MAX - 1)
/* function_id of a thread's root node (fr_stack_agg_set_thread_roots): this bit | the
 * thread's index (fr_stack_agg_thread_tid gives its tid: a tid from a damaged trace may
 * be any 32-bit value, which these bits could not hold beside the other kinds) */
#define FR_STACK_THREAD 0x80000000u
/* function_id of a process's root node (fr_stack_agg_set_process): these bits | index */
#define FR_STACK_PROCESS 0xC0000000u
static inline int fr_stack_is_thread(uint32_t function_id)
{
    return (function_id & FR_STACK_PROCESS) == FR_STACK_THREAD;
}
static inline int fr_stack_is_process(uint32_t function_id)
{
    return function_id < FR_STACK_DEEPER && (function_id & FR_STACK_PROCESS) == FR_STACK_PROCESS;
}

/* 32 bytes; with the hash table's 21-43 bytes a node (16-byte slots, 3/8 to 3/4 full),
 * 53 to 75 bytes per distinct stack. */
typedef struct fr_stack_node {
    uint32_t parent;         /* index of the caller's node, or FR_STACK_ROOT */
    uint32_t function_id;    /* or FR_STACK_OTHER */
    uint64_t calls;
    uint64_t total_ticks;    /* sum of the durations of the calls with this stack */
    uint64_t self_ticks;     /* same, minus time in traced callees */
} fr_stack_node;

typedef struct fr_stack_agg fr_stack_agg;

fr_stack_agg *fr_stack_agg_new(void);
void fr_stack_agg_free(fr_stack_agg *sa);
/* Bounded mode: once max_stacks nodes exist, a call whose stack would need a new node is
 * counted in an "other" node (FR_STACK_OTHER) under the deepest existing node of its
 * stack, and everything deeper in that stack goes into the same "other" node. At most
 * one "other" node per node, and one for the roots, so never more than 2 * max_stacks + 1
 * nodes. Call before
 * feeding; 0 (the default) means the largest limit, 33 million stacks (1 GiB). */
void fr_stack_agg_set_limit(fr_stack_agg *sa, size_t max_stacks);
/* A figure of a stack's node: what a ranking of stacks sorts by. */
typedef enum { FR_STACK_BY_TOTAL, FR_STACK_BY_SELF, FR_STACK_BY_CALLS } fr_stack_figure;
static inline uint64_t fr_stack_figure_of(const fr_stack_node *s, fr_stack_figure f)
{
    return f == FR_STACK_BY_CALLS ? s->calls : f == FR_STACK_BY_SELF ? s->self_ticks : s->total_ticks;
}
/* The node limit of fr_stack_agg_set_limit, and a bound of one figure of the stacks that
 * got no node (fr_stack_agg_unkept_bound); for fr_stack_agg_on_steps only. */
void fr_stack_agg_set_bound(fr_stack_agg *sa, size_t max_stacks, fr_stack_figure figure);
/* After fr_stack_agg_set_bound: false if every call had its stack's node; else true, and
 * *bound is at least the figure of any stack that got none (what the whole tree would
 * have given it). */
bool fr_stack_agg_unkept_bound(const fr_stack_agg *sa, uint64_t *bound);
/* Bounded memory for every stack (stack_spill.h): once the tree has max_nodes nodes (or
 * would have, at the next batch of steps), fn(sa, ctx) is called to take them (through
 * fr_stack_agg_count and fr_stack_agg_node), and then the tree starts again with only the
 * nodes of the frames open at that moment (made again, first; some frames closed may be
 * among them, with no calls). So a stack has a node in each tree it was met in; a stack's
 * first node is in the tree it was first met in, in the whole tree's order there. For
 * fr_stack_agg_on_steps only, not with a limit (set_limit, set_bound). Call before
 * feeding. */
typedef void (*fr_stack_full_fn)(fr_stack_agg *sa, void *ctx);
void fr_stack_agg_set_full(fr_stack_agg *sa, size_t max_nodes, fr_stack_full_fn fn, void *ctx);
/* Drops every node and gives their memory back (after the last tree was taken); the
 * threads, the counts of "other" and "deeper" calls stay. */
void fr_stack_agg_release(fr_stack_agg *sa);
/* Depth limit: a call whose frame would be the (max_depth+1)-th function frame of its
 * stack (below process and thread roots) is counted in a "deeper" node (FR_STACK_DEEPER)
 * under its caller's node, and so is every call deeper in that stack. A deeper node's
 * calls are all the calls cut, its self time theirs, its total time that of the outermost
 * of them (the time spent below the limit, each nested call's time counted once). So a
 * deep recursion (a stack overflow's trace) makes max_depth nodes, not one per level.
 * Outside the node limit: at most one "other" or "deeper" child per node, so the bound
 * of set_limit holds. Call before feeding; 0 (the default) means no limit. */
void fr_stack_agg_set_max_depth(fr_stack_agg *sa, uint32_t max_depth);
/* One tree per thread: every stack starts with a node for its thread (function_id
 * FR_STACK_THREAD | its index, no calls of its own), outside the limit. Call before
 * feeding. */
void fr_stack_agg_set_thread_roots(fr_stack_agg *sa, int on);
/* The tid of a thread's root node's function_id (fr_stack_is_thread). */
int32_t fr_stack_agg_thread_tid(const fr_stack_agg *sa, uint32_t function_id);
/* Several processes in one tree (`convert` of several traces): the threads fed from now
 * on are process `index`'s (a tid seen in an earlier process is another thread), and each
 * of their stacks starts with the process's node (function_id FR_STACK_PROCESS | index,
 * no calls of its own, outside the limit), above the thread's root node if any. Call
 * before feeding each process's records (index < 2^30 - 2); nodes are created in feeding
 * order, so each process's nodes are the ones created while it was fed. */
void fr_stack_agg_set_process(fr_stack_agg *sa, uint32_t index);
/* Calls counted in "other" nodes. */
uint64_t fr_stack_agg_merged_calls(const fr_stack_agg *sa);
/* Calls counted in "deeper" nodes. */
uint64_t fr_stack_agg_deeper_calls(const fr_stack_agg *sa);
/* Calls below the depth limit, counted in "deeper" nodes or in "other" nodes: the calls
 * "deeper" nodes would hold without the node limit (fr_stack_agg_set_limit). */
uint64_t fr_stack_agg_cut_calls(const fr_stack_agg *sa);
/* Tracker callbacks (ctx = the fr_stack_agg). */
void fr_stack_agg_on_enter(int32_t tid, uint64_t tsc, const uint32_t *stack, uint32_t depth, void *ctx);
void fr_stack_agg_on_call(const fr_call *call, void *ctx);
/* Or, faster, the fr_steps_fn of a tracker from fr_call_tracker_new_steps. */
void fr_stack_agg_on_steps(int32_t tid, const fr_call_step *steps, size_t n, void *ctx);

/* Nodes are numbered 0..count-1 in order of creation; a parent always has a smaller index
 * than its children. Nodes may exist with calls == 0 (entered, never completed). */
size_t fr_stack_agg_count(const fr_stack_agg *sa);
const fr_stack_node *fr_stack_agg_node(const fr_stack_agg *sa, uint32_t index);
/* All of them, nodes[0..count-1] (valid until the tree changes): for walks in another
 * order than the index's, without a call per node. */
const fr_stack_node *fr_stack_agg_nodes(const fr_stack_agg *sa);
/* Depth of a node (0 = a root function): walks up to the root. */
uint32_t fr_stack_agg_depth(const fr_stack_agg *sa, uint32_t index);
/* The node's path, root first, into ids[0..cap-1]; returns the path length (depth+1),
 * which may exceed cap (then only the first cap ids are written). */
uint32_t fr_stack_agg_path(const fr_stack_agg *sa, uint32_t index, uint32_t *ids, uint32_t cap);
/* The node for a stack (root first, n ids), or FR_STACK_ROOT if no call had that stack. */
uint32_t fr_stack_agg_find(const fr_stack_agg *sa, const uint32_t *stack, uint32_t n);

#endif
