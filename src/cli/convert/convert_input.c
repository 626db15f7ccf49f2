/*
 * convert_input.c - opening and closing a trace that a converter reads (convert.h:
 * cv_open_input, cv_close_input): the command opens its one input with them, and the
 * folded and svg writers open each of several inputs in turn. Here, beside the writers,
 * so that the writers call nothing of the command (commands/cmd_convert.c), which calls them.
 */
#include <unistd.h>

#include "convert.h"

int cv_open_input(cv_job *job, fr_cli_trace *trace, const char *in)
{
    int rc = fr_cli_open(trace, "convert", in, job->binary);
    if (rc)
        return rc;
    trace->return_meta = true;   /* LOST markers reach the call tracker, yaml shows all */
    trace->only_tids = job->tids;
    job->trace = trace;
    job->in_path = in;
    job->info = trace->info;
    job->meta = &trace->meta;
    job->symbols = trace->symbols;
    job->have_names = job->binary || trace->meta.n_functions > 0 ||
                      (trace->meta.executable && trace->meta.executable[0] &&
                       access(trace->meta.executable, R_OK) == 0);
    job->ticks_per_second = trace->ticks_per_second;
    cv_clock_init(&job->clock, job->ticks_per_second);
    if (job->ticks_per_second == 0) {
        fr_cli_close(trace);
        return fr_cli_input_error("convert", "%s: offset 8: the clock frequency is 0", in);
    }
    return 0;
}

int cv_close_input(cv_job *job, fr_cli_trace *trace)
{
    job->tid_records += trace->tid_records;
    return fr_cli_close(trace);
}
