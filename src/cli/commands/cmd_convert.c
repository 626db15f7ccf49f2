/*
 * cmd_convert.c - `flightrec convert FILE --format chrome|folded|svg|yaml|perfetto [-o OUT]`:
 * parses the options, opens the trace, reads its metadata block ahead (names, clock,
 * threads come first in our files), loads symbols, and hands over to the format's writer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli_common.h"
#include "commands.h"
#include "analysis_cli.h"
#include "convert/convert.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: flightrec convert FILE --format FORMAT [-o OUT] [options]\n"
        "       flightrec convert FILE FILE... --format perfetto|chrome|folded|svg [-o OUT] [options]\n"
        "\n"
        "Converts a trace, reading it once and writing as it reads. Several traces (a\n"
        "process and its children: FILE FILE.*) go into one Perfetto or Chrome JSON file\n"
        "on one clock (CLOCK_MONOTONIC, from each file's clock event), each process under\n"
        "its own pid, or into one set of folded stacks or one flame graph, every stack\n"
        "under its process's frame (\"[process PID NAME]\"), the processes in the order\n"
        "of the files; yaml converts one file.\n"
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
        "options:\n"
        "  -f, --format FORMAT  output format (required)\n"
        "  -o, --output OUT     output file (default: standard output)\n"
        "  --binary BIN         take function names from BIN (its xray_instr_map and symbols)\n"
        "  --demangle=MODE      C++ names: full (default), simple (no template arguments nor\n"
        "                       parameter lists: ns::Box::get) or no (mangled, as linked)\n"
        "  --weight time|calls  folded/svg: weight of a stack, self time in ns (default) or calls\n"
        "  --title TEXT         svg: title of the flame graph\n"
        "  --tid TID[,TID...]   only these threads (repeatable; not for yaml); with several\n"
        "                       FILEs, the thread of that id in every FILE that has one\n"
        "  --thread-root        folded/svg: each stack starts with its thread, so the flame\n"
        "                       graph has one tree per thread (default: threads merged);\n"
        "                       with several FILEs, under its process's frame\n"
        "  --max-stacks N       folded/svg: keep at most N distinct stacks in memory; calls\n"
        "                       whose stack would be a new one once N exist are counted in\n"
        "                       an \"[other]\" frame under their deepest known caller; with\n"
        "                       several FILEs, N for all of them together\n"
        "  --max-depth N        folded/svg: keep at most N function frames of a stack\n"
        "                       (default 1024); the calls below the N-th are counted in a\n"
        "                       \"[deeper]\" frame under it (their self time)\n"
        "  --ids                yaml: print function ids, not names (llvm-xray without -symbolize)\n"
        "  -h, --help           this help\n"
        "FILE '-' reads the trace from standard input.\n"
        "\n"
        "exit codes: 0 success, 1 bad input (the message names the file and byte offset),\n"
        "2 bad usage\n");
}

static int usage_error(const char *fmt, const char *arg)
{
    return fr_cli_usage_error("convert", fmt, arg);
}

#define MAX_INPUTS 256

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
    /* Every input must have the anchor, checked before anything is written. */
    for (size_t i = 0; i < n; i++) {
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

int cmd_convert(int argc, char **argv)
{
    const char *inputs[MAX_INPUTS], *out_path = NULL, *format = NULL;
    const char *weight = "time";
    size_t n_inputs = 0;
    const char *max_stacks = NULL, *max_depth = NULL, *demangle = NULL;
    cv_job job = {.max_depth = FR_ACLI_DEFAULT_MAX_DEPTH};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int m;
        if (fr_cli_is_help(a)) {
            usage(stdout);
            return FR_EXIT_OK;
        }
        if ((m = fr_cli_option("convert", argc, argv, &i, "--format", &format)) ||
            (m = fr_cli_option("convert", argc, argv, &i, "-f", &format)) ||
            (m = fr_cli_option("convert", argc, argv, &i, "--output", &out_path)) ||
            (m = fr_cli_option("convert", argc, argv, &i, "-o", &out_path)) ||
            (m = fr_cli_option("convert", argc, argv, &i, "--binary", &job.binary)) ||
            (m = fr_cli_option("convert", argc, argv, &i, "--demangle", &demangle)) ||
            (m = fr_cli_option("convert", argc, argv, &i, "--weight", &weight)) ||
            (m = fr_cli_option("convert", argc, argv, &i, "--title", &job.title)) ||
            (m = fr_cli_option("convert", argc, argv, &i, "--max-stacks", &max_stacks)) ||
            (m = fr_cli_option("convert", argc, argv, &i, "--max-depth", &max_depth))) {
            if (m < 0)
                return FR_EXIT_USAGE;
        } else if (!strcmp(a, "--thread-root")) {
            job.thread_roots = true;
        } else if (!strcmp(a, "--tid") || !strncmp(a, "--tid=", 6)) {
            const char *v = a[5] == '=' ? a + 6 : i + 1 < argc ? argv[++i] : NULL;
            if (!v)
                return usage_error("%s", "--tid needs a thread id");
            if (fr_cli_parse_tids("convert", v, &job.tids))
                return FR_EXIT_USAGE;
        } else if (!strcmp(a, "--ids")) {
            job.ids_only = true;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option '%s'", a);
        } else if (n_inputs == MAX_INPUTS) {
            return usage_error("more than 256 input files ('%s')", a);
        } else {
            inputs[n_inputs++] = a;
        }
    }
    if (!n_inputs)
        return usage_error("%s", "no input file");
    if (!format)
        return usage_error("%s", "no --format (chrome, folded, svg, yaml or perfetto)");
    int (*convert)(cv_job *) = NULL;
    if (!strcmp(format, "chrome")) convert = cv_convert_chrome;
    else if (!strcmp(format, "folded")) convert = cv_convert_folded;
    else if (!strcmp(format, "svg")) convert = cv_convert_svg;
    else if (!strcmp(format, "yaml")) convert = cv_convert_yaml;
    else if (!strcmp(format, "perfetto")) convert = cv_convert_perfetto;
    else return usage_error("unknown format '%s' (chrome, folded, svg, yaml or perfetto)", format);
    if (max_stacks) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(max_stacks, &end, 10);
        if (!*max_stacks || *end || errno || v == 0 || max_stacks[0] == '-')
            return usage_error("--max-stacks '%s': expected a count of at least 1", max_stacks);
        if (convert != cv_convert_folded && convert != cv_convert_svg)
            return usage_error("--max-stacks applies to the folded and svg formats, not '%s'", format);
        job.max_stacks = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
    }
    if (demangle && fr_cli_parse_demangle("convert", demangle))
        return FR_EXIT_USAGE;
    if (max_depth) {
        if (fr_acli_parse_max_depth("convert", max_depth, &job.max_depth))
            return FR_EXIT_USAGE;
        if (convert != cv_convert_folded && convert != cv_convert_svg)
            return usage_error("--max-depth applies to the folded and svg formats, not '%s'", format);
    }
    if (job.thread_roots && convert != cv_convert_folded && convert != cv_convert_svg)
        return usage_error("--thread-root applies to the folded and svg formats, not '%s'", format);
    if (job.tids.n && convert == cv_convert_yaml)
        return usage_error("%s", "--tid: the yaml format is llvm-xray's whole trace; use another format");
    if (n_inputs > 1 && convert == cv_convert_yaml)
        return usage_error("several input files are merged by --format perfetto, chrome, folded "
                           "or svg, not '%s' (convert each file on its own)", format);
    if (!strcmp(weight, "time")) job.weight = CV_WEIGHT_TIME;
    else if (!strcmp(weight, "calls")) job.weight = CV_WEIGHT_CALLS;
    else return usage_error("unknown --weight '%s' (time or calls)", weight);

    job.out_path = out_path;
    /* Several inputs: none twice (its process would be there twice, its calls count twice). */
    int drc = fr_cli_check_distinct("convert", inputs, n_inputs);
    if (drc)
        return drc;
    int rc;
    if (n_inputs > 1 && (convert == cv_convert_perfetto || convert == cv_convert_chrome)) {
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
