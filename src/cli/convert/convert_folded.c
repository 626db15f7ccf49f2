/*
 * convert_folded.c - folded stacks, one line per unique stack: "main;parse;lex 1234",
 * the input of flamegraph.pl, speedscope and inferno. The weight is the stack's self
 * time in nanoseconds (--weight calls: the number of calls that ended with that stack).
 * Stacks whose weight is 0 are left out, as a sampling profiler would never see them.
 */
#include <stdlib.h>
#include "analysis.h"
#include "commands.h"
#include "convert.h"

/* A frame name safe in folded lines: ';' separates frames and a newline ends the line. */
static char *folded_name(const char *name, void *ctx)
{
    (void)ctx;
    char *s = strdup(name);
    if (!s) {
        fprintf(stderr, "flightrec convert: out of memory\n");
        exit(1);
    }
    for (char *p = s; *p; p++)
        if (*p == ';')
            *p = ':';
        else if (*p == '\n' || *p == '\r')
            *p = ' ';
    return s;
}

/* folded_name for a thread frame (its name comes from the trace), in place in buf. */
static const char *folded_name_into(const char *name, char *buf, size_t n)
{
    if (name != buf)
        snprintf(buf, n, "%s", name);
    for (char *p = buf; *p; p++)
        if (*p == ';')
            *p = ':';
        else if (*p == '\n' || *p == '\r')
            *p = ' ';
    return buf;
}

int cv_convert_folded(cv_job *job)
{
    cv_stacks st;
    int rc = cv_stacks_build(job, &st);
    cv_names names;
    cv_names_init(&names, job->symbols, folded_name, NULL);
    cv_out o;
    cv_out_init(&o, job->out);
    uint32_t cap = 256, *path = malloc(cap * sizeof *path);
    for (size_t i = 0; i < st.n && path; i++) {
        uint64_t weight = cv_stack_weight(job, &st, (uint32_t)i);
        if (weight == 0)
            continue;
        uint32_t len = fr_stack_agg_path(st.agg, (uint32_t)i, path, cap);
        if (len > cap) {
            cap = len;
            path = realloc(path, cap * sizeof *path);
            if (!path)
                break;
            fr_stack_agg_path(st.agg, (uint32_t)i, path, cap);
        }
        for (uint32_t k = 0; k < len; k++) {
            if (k)
                cv_putc(&o, ';');
            char buf[96];
            const char *name = cv_stack_frame_name(job, &names, path[k], buf, sizeof buf);
            if (fr_stack_is_thread(path[k]))
                name = folded_name_into(name, buf, sizeof buf);
            cv_puts(&o, name);
        }
        cv_putc(&o, ' ');
        cv_u64(&o, weight);
        cv_putc(&o, '\n');
    }
    if (!path) {
        fprintf(stderr, "flightrec convert: out of memory\n");
        exit(1);
    }
    free(path);
    if (cv_out_finish(&o)) {
        fprintf(stderr, "flightrec convert: writing %s failed\n", job->out_path);
        rc = FR_EXIT_BAD_INPUT;
    }
    cv_names_free(&names);
    cv_stacks_free(&st);
    return rc;
}
