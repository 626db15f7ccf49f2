/*
 * cmd_convert.c - `flightrec convert FILE --format chrome|folded|svg|yaml|perfetto [-o OUT]`:
 * parses the options, opens the trace, reads its metadata block ahead (names, clock,
 * threads come first in our files), loads symbols, and hands over to the format's writer.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "cli_common.h"
#include "commands.h"
#include "analysis_cli.h"
#include "convert/convert.h"
#include "cli_options.h"

static int usage_error(const char *fmt, const char *arg)
{
    return fr_cli_usage_error("convert", fmt, arg);
}

#define MAX_INPUTS 256

/* Several traces (a process and its children, services on one host) into one Perfetto
 * or Chrome JSON file on one clock: each file's clock event anchors its ticks to
 * CLOCK_MONOTONIC (cv_monotonic_origin). */
static int merge(cv_job *job, bool chrome, const char *const *inputs, size_t n,
                 const char *out_path)
{
    /* Each input is opened twice (its anchor first, then its records): standard input
     * could be read only once, and the second read would find it empty after half the
     * output was written. */
    for (size_t i = 0; i < n; i++)
        if (!strcmp(inputs[i], "-"))
            return usage_error("'%s' (standard input) cannot be one of several files here: "
                               "save it to a file first", inputs[i]);
    /* Every input must have the anchor, checked before anything is written: a trace its
     * clock event, a perf.data its CLOCK_MONOTONIC times (perf record -k monotonic). */
    bool is_perf[MAX_INPUTS];
    for (size_t i = 0; i < n; i++) {
        is_perf[i] = cv_is_perf_data(inputs[i]);
        if (is_perf[i]) {
            cv_perf_input *in;
            int rc = cv_perf_open(inputs[i], &job->tids, &in);
            if (rc)
                return rc;
            cv_perf_close(in);
            continue;
        }
        fr_cli_trace trace;
        int rc = cv_open_input(job, &trace, inputs[i]);
        if (rc)
            return rc;
        int64_t origin;
        bool anchored = cv_monotonic_origin(job, &origin);
        fr_cli_close(&trace);
        if (!anchored)
            return fr_cli_input_error("convert", "%s has no clock event (CLOCK_MONOTONIC anchor): "
                                      "it cannot be placed on the other files' timeline", inputs[i]);
    }
    FILE *out = stdout;
    if (out_path && strcmp(out_path, "-")) {
        if (fr_cli_check_output("convert", out_path))
            return FR_EXIT_BAD_INPUT;
        out = cv_fopen_output(out_path);
        if (!out)
            return fr_cli_input_error("convert", "cannot create %s: %s", out_path, strerror(errno));
    }
    job->out = out;
    job->out_path = out == stdout ? "<stdout>" : out_path;
    cv_perfetto *p = chrome ? NULL : cv_perfetto_begin(out);
    cv_chrome *c = chrome ? cv_chrome_begin(out, true) : NULL;
    int rc = FR_EXIT_OK;
    for (size_t i = 0; i < n; i++) {
        if (is_perf[i]) {
            cv_perf_input *in;
            int orc = cv_perf_open(inputs[i], &job->tids, &in);
            if (orc) {
                rc = orc;
                continue;
            }
            int arc = chrome ? cv_chrome_add_perf(c, in) : cv_perfetto_add_perf(p, in);
            job->tid_records += cv_perf_given(in);
            if (cv_perf_note(in))
                fprintf(stderr, "flightrec convert: note: %s: %s\n", inputs[i], cv_perf_note(in));
            cv_perf_close(in);
            if (!rc)
                rc = arc;
            continue;
        }
        fr_cli_trace trace;
        int orc = cv_open_input(job, &trace, inputs[i]);
        if (orc) {
            rc = orc;
            continue;
        }
        int arc = chrome ? cv_chrome_add(c, job) : cv_perfetto_add(p, job);
        int crc = cv_close_input(job, &trace);
        if (!rc)
            rc = arc ? arc : crc;
    }
    int erc = chrome ? cv_chrome_end(c, job->out_path) : cv_perfetto_end(p, job->out_path);
    if (out != stdout && cv_fclose_output(out) != 0 && !erc)
        erc = fr_cli_input_error("convert", "writing %s: %s", out_path, strerror(errno));
    return rc ? rc : erc;
}

/* ---------------------------------------------------------------- parse */

struct convert_opts {
    cv_job      job;   /* --binary, --title, --tid, --thread-root, --ids */
    const char *out_path, *format, *weight, *max_stacks, *max_depth;
};

static const fr_cli_opt convert_options[] = {
    FR_CLI_OPT_FORMAT(struct convert_opts, format, " FORMAT", "chrome|folded|svg|yaml|perfetto",
                      "unknown format '%s' (chrome, folded, svg, yaml or perfetto)",
                      "output format (required): chrome, folded, svg, yaml or perfetto"),
    FR_CLI_OPT_OUTPUT(struct convert_opts, out_path, " OUT", "output file (default: standard output)"),
    FR_CLI_OPT_BINARY(struct convert_opts, job.binary,
                      "take function names from BIN (its xray_instr_map and symbols)"),
    FR_CLI_OPT_DEMANGLE(FR_CLI_HELP_DEMANGLE),
    {.name = "weight", .arg = " time|calls", .set = fr_cli_set_string,
     .offset = offsetof(struct convert_opts, weight),
     .help = "folded/svg: weight of a stack, self time in ns (default) or calls"},
    {.name = "title", .arg = " TEXT", .set = fr_cli_set_string,
     .offset = offsetof(struct convert_opts, job.title), .help = "svg: title of the flame graph"},
    FR_CLI_OPT_TIDS(struct convert_opts, job.tids, " TID[,TID...]",
                    "only these threads (repeatable; not for yaml); with several\n"
                    "FILEs, the thread of that id in every FILE that has one"),
    FR_CLI_OPT_FLAG("thread-root", 0, struct convert_opts, job.thread_roots,
                    "folded/svg: each stack starts with its thread, so the flame\n"
                    "graph has one tree per thread (default: threads merged);\n"
                    "with several FILEs, under its process's frame"),
    {.name = "max-stacks", .arg = " N", .set = fr_cli_set_string,
     .offset = offsetof(struct convert_opts, max_stacks),
     .help = "folded/svg: keep at most N distinct stacks in memory; calls\n"
             "whose stack would be a new one once N exist are counted in\n"
             "an \"[other]\" frame under their deepest known caller; with\n"
             "several FILEs, N for all of them together"},
    {.name = "max-depth", .arg = " N", .set = fr_cli_set_string,
     .offset = offsetof(struct convert_opts, max_depth),
     .help = "folded/svg: keep at most N function frames of a stack\n"
             "(default 1024); the calls below the N-th are counted in a\n"
             "\"[deeper]\" frame under it (their self time)"},
    FR_CLI_OPT_FLAG("ids", 0, struct convert_opts, job.ids_only,
                    "yaml: print function ids, not names (llvm-xray without -symbolize)"),
    FR_CLI_OPT_HELP("this help"),
    {0},
};

const fr_cli_command fr_cmd_convert = {
    .name = "convert",
    .summary = "to Perfetto, Chrome JSON, folded stacks, SVG flame graph, YAML",
    .run = cmd_convert,
    .head = "usage: flightrec convert FILE --format FORMAT [-o OUT] [options]\n"
            "       flightrec convert FILE FILE... --format perfetto|chrome|folded|svg [-o OUT] [options]\n"
            "       flightrec convert TRACE PERF.DATA --format perfetto|chrome [-o OUT]\n"
            "\n"
            "Converts a trace, reading it once and writing as it reads. Several traces (a\n"
            "process and its children: FILE FILE.*) go into one Perfetto or Chrome JSON file\n"
            "on one clock (CLOCK_MONOTONIC, from each file's clock event), each process under\n"
            "its own pid, or into one set of folded stacks or one flame graph, every stack\n"
            "under its process's frame (\"[process PID NAME]\"), the processes in the order\n"
            "of the files; yaml converts one file. A perf.data file among them (perf record\n"
            "-k monotonic, so that its times are CLOCK_MONOTONIC too) puts its tracepoint\n"
            "samples, user_events decoded, on the same Perfetto or Chrome timeline.\n"
            "\n"
            "formats:\n"
            "  chrome   Chrome trace_event JSON (Perfetto UI, chrome://tracing): calls as\n"
            "           complete events per thread, structured events as instants with their\n"
            "           fields, spans as async slices, thread and process names\n"
            "  folded   folded stacks \"main;f;g WEIGHT\" for flamegraph.pl and speedscope\n"
            "  svg      a self-contained interactive SVG flame graph (click to zoom, search)\n"
            "  yaml     llvm-xray's YAML trace format (as `llvm-xray convert -f yaml` writes it)\n"
            "  perfetto Perfetto's protobuf trace (ui.perfetto.dev, trace processor): calls as\n"
            "           slices per thread, structured events as instants with their fields,\n"
            "           activities as async slices, process/thread names, CLOCK_MONOTONIC time\n"
            "\n"
            "options:\n",
    .options = convert_options,
    .column = 23,
    .tail = "FILE '-' reads the trace from standard input.\n"
            "\n"
            "exit codes: 0 success, 1 bad input (the message names the file and byte offset),\n"
            "2 bad usage\n",
    .bad_option = fr_cli_bad_option_named,
};

/* ---------------------------------------------------------------- check */

static bool stacks_format(int (*convert)(cv_job *))
{
    return convert == cv_convert_folded || convert == cv_convert_svg;
}

/* The options against the format and the number of inputs, into o->job; the format's
 * converter in *convert. 0, or FR_EXIT_USAGE after a message. */
static int check_options(struct convert_opts *o, size_t n_inputs, int (*(*convert))(cv_job *))
{
    const char *format = o->format;
    cv_job *job = &o->job;
    if (!strcmp(format, "chrome")) *convert = cv_convert_chrome;
    else if (!strcmp(format, "folded")) *convert = cv_convert_folded;
    else if (!strcmp(format, "svg")) *convert = cv_convert_svg;
    else if (!strcmp(format, "yaml")) *convert = cv_convert_yaml;
    else *convert = cv_convert_perfetto;
    if (o->max_stacks) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(o->max_stacks, &end, 10);
        if (!*o->max_stacks || *end || errno || v == 0 || o->max_stacks[0] == '-')
            return usage_error("--max-stacks '%s': expected a count of at least 1", o->max_stacks);
        if (!stacks_format(*convert))
            return usage_error("--max-stacks applies to the folded and svg formats, not '%s'", format);
        job->max_stacks = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
    }
    if (o->max_depth) {
        if (fr_acli_parse_max_depth("convert", o->max_depth, &job->max_depth))
            return FR_EXIT_USAGE;
        if (!stacks_format(*convert))
            return usage_error("--max-depth applies to the folded and svg formats, not '%s'", format);
    }
    if (job->thread_roots && !stacks_format(*convert))
        return usage_error("--thread-root applies to the folded and svg formats, not '%s'", format);
    if (job->tids.n && *convert == cv_convert_yaml)
        return usage_error("%s", "--tid: the yaml format is llvm-xray's whole trace; use another format");
    if (n_inputs > 1 && *convert == cv_convert_yaml)
        return usage_error("several input files are merged by --format perfetto, chrome, folded "
                           "or svg, not '%s' (convert each file on its own)", format);
    if (!o->weight || !strcmp(o->weight, "time")) job->weight = CV_WEIGHT_TIME;
    else if (!strcmp(o->weight, "calls")) job->weight = CV_WEIGHT_CALLS;
    else return usage_error("unknown --weight '%s' (time or calls)", o->weight);
    /* An option of one format would do nothing in another: said, as above. */
    if (o->weight && !stacks_format(*convert))
        return usage_error("--weight applies to the folded and svg formats, not '%s'", format);
    if (job->title && *convert != cv_convert_svg)
        return usage_error("--title applies to the svg format, not '%s'", format);
    if (job->ids_only && *convert != cv_convert_yaml)
        return usage_error("--ids applies to the yaml format, not '%s'", format);
    return 0;
}

/* ---------------------------------------------------------------- the command */

int cmd_convert(int argc, char **argv)
{
    struct convert_opts o = {.job = {.max_depth = FR_ACLI_DEFAULT_MAX_DEPTH}};
    fr_cli_operands files;
    int rc = fr_cli_parse(&fr_cmd_convert, argc, argv, &o, &files);
    if (rc)
        return rc == FR_CLI_HELP_SHOWN ? FR_EXIT_OK : rc;
    if (files.n > MAX_INPUTS)
        return usage_error("more than 256 input files ('%s')", files.v[MAX_INPUTS]);
    if (!files.n)
        return usage_error("%s", "no input file");
    if (!o.format)
        return usage_error("%s", "no --format (chrome, folded, svg, yaml or perfetto)");
    const char *const *inputs = (const char *const *)files.v;
    size_t n_inputs = (size_t)files.n;
    int (*convert)(cv_job *);
    if ((rc = check_options(&o, n_inputs, &convert)) != 0)
        return rc;
    cv_job job = o.job;
    const char *out_path = o.out_path;

    job.out_path = out_path;
    /* Several inputs: none twice (its process would be there twice, its calls count twice). */
    int drc = fr_cli_check_distinct("convert", inputs, n_inputs);
    if (drc)
        return drc;
    bool any_perf = false;
    for (size_t i = 0; i < n_inputs; i++)
        any_perf |= cv_is_perf_data(inputs[i]);
    if (any_perf && convert != cv_convert_perfetto && convert != cv_convert_chrome)
        return usage_error("a perf.data input goes on the timeline of --format perfetto or chrome, "
                           "not '%s' (flightrec decode-perf prints its events)", o.format);
    if ((n_inputs > 1 || any_perf) && (convert == cv_convert_perfetto || convert == cv_convert_chrome)) {
        rc = merge(&job, convert == cv_convert_chrome, inputs, n_inputs, out_path);
        return rc ? rc : fr_cli_tids_matched("convert", &job.tids, job.tid_records);
    }

    /* folded and svg of several traces read them one after the other into one tree, and
     * open the output once they are read; one trace is opened here, then the output */
    fr_cli_trace trace;
    if (n_inputs > 1) {
        job.inputs = inputs;
        job.n_inputs = n_inputs;
        job.in_path = inputs[0];
    } else if ((rc = cv_open_input(&job, &trace, inputs[0])) != 0) {
        return rc;
    } else if ((rc = cv_open_output(&job)) != 0) {
        fr_cli_close(&trace);
        return rc;
    }
    rc = convert(&job);
    if (job.out && job.out != stdout && cv_fclose_output(job.out) != 0 && rc == FR_EXIT_OK)
        rc = fr_cli_input_error("convert", "writing %s: %s", out_path, strerror(errno));
    int crc = n_inputs > 1 ? FR_EXIT_OK : cv_close_input(&job, &trace);
    if (!rc && !crc)
        rc = fr_cli_tids_matched("convert", &job.tids, job.tid_records);
    return rc ? rc : crc;
}
