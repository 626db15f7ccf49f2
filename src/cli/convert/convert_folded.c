/*
 * convert_folded.c - folded stacks, one line per unique stack: "main;parse;lex 1234",
 * the input of flamegraph.pl, speedscope and inferno. The weight is the stack's self
 * time in nanoseconds (--weight calls: the number of calls that ended with that stack).
 * Stacks whose weight is 0 are left out, as a sampling profiler would never see them.
 * Several traces: every line starts with its process's frame ("[process PID NAME]").
 */
#include <stdlib.h>
#include "analysis.h"
#include "commands.h"
#include "stack_spill.h"
#include "convert.h"
#include "text_escape.h"

/* A frame name safe in folded lines: ';' separates frames and a newline ends the line
 * (';' becomes ':', CR and LF a space), and the other controls, DEL, the C1 controls and
 * bytes that are not UTF-8 are escaped as \xHH (text_escape.h), as in every text output. */
static char *folded_name(const char *name, void *ctx)
{
    (void)ctx;
    fr_text_buf b = {0};
    char *s = strdup(fr_text_escape_frame(&b, name));
    fr_text_buf_free(&b);
    if (!s) {
        fprintf(stderr, "flightrec convert: out of memory\n");
        exit(1);
    }
    return s;
}

/* A spilled stack's line (fr_stack_spill_by_creation: the tree's order, as below). */
struct spilled_lines { cv_job *job; cv_stacks *st; cv_out *o; };

static void spilled_line(const fr_spilled_stack *s, void *ctx)
{
    struct spilled_lines *l = ctx;
    uint64_t weight = cv_spilled_weight(l->job, l->st, s->path, s->calls, s->self_ticks);
    if (weight == 0)
        return;
    for (uint32_t k = 0; k < s->len; k++) {
        cv_puts(l->o, cv_stack_frame_name_of(l->st, s->path, s->path[k]));
        cv_putc(l->o, k + 1 < s->len ? ';' : ' ');
    }
    cv_u64(l->o, weight);
    cv_putc(l->o, '\n');
}

int cv_convert_folded(cv_job *job)
{
    cv_stacks st;
    int rc, orc = cv_stacks_build_for_output(job, &st, folded_name, &rc);
    if (orc)
        return orc;
    cv_out o;
    cv_out_init(&o, job->out);
    if (st.spill)
        fr_stack_spill_by_creation(st.spill, spilled_line, &(struct spilled_lines){job, &st, &o});
    /* Each line is a node's path: its nodes from the root, found through the parents. */
    uint32_t cap = 256, *path = malloc(cap * sizeof *path);
    for (size_t i = 0; i < st.n && path; i++) {
        uint64_t weight = cv_stack_weight(job, &st, (uint32_t)i);
        if (weight == 0)
            continue;
        uint32_t len = 0;
        for (uint32_t v = (uint32_t)i; v != FR_STACK_ROOT && path; v = fr_stack_agg_node(st.agg, v)->parent) {
            if (len == cap)
                path = realloc(path, (cap *= 2) * sizeof *path);
            if (path)
                path[len++] = v;
        }
        for (uint32_t k = len; k-- > 0 && path;) {
            cv_puts(&o, cv_stack_frame_name(&st, path[k]));
            cv_putc(&o, k ? ';' : ' ');
        }
        cv_u64(&o, weight);
        cv_putc(&o, '\n');
    }
    if (!path) {
        fprintf(stderr, "flightrec convert: out of memory\n");
        exit(1);
    }
    free(path);
    int wrc = cv_out_finish(&o);
    if (wrc) {
        fprintf(stderr, "flightrec convert: writing %s: %s\n", job->out_path, strerror(-wrc));
        rc = FR_EXIT_BAD_INPUT;
    }
    cv_stacks_free(&st);
    return rc;
}
