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
#include "convert/convert.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: flightrec convert FILE --format FORMAT [-o OUT] [options]\n"
        "\n"
        "Converts a trace, reading it once and writing as it reads.\n"
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
        "  --weight time|calls  folded/svg: weight of a stack, self time in ns (default) or calls\n"
        "  --title TEXT         svg: title of the flame graph\n"
        "  --max-stacks N       folded/svg: keep at most N distinct stacks in memory; calls\n"
        "                       whose stack would be a new one once N exist are counted in\n"
        "                       an \"[other]\" frame under their deepest known caller\n"
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

int cmd_convert(int argc, char **argv)
{
    const char *in = NULL, *out_path = NULL, *format = NULL, *binary = NULL, *weight = "time";
    const char *max_stacks = NULL;
    cv_job job = {0};
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
            (m = fr_cli_option("convert", argc, argv, &i, "--binary", &binary)) ||
            (m = fr_cli_option("convert", argc, argv, &i, "--weight", &weight)) ||
            (m = fr_cli_option("convert", argc, argv, &i, "--title", &job.title)) ||
            (m = fr_cli_option("convert", argc, argv, &i, "--max-stacks", &max_stacks))) {
            if (m < 0)
                return FR_EXIT_USAGE;
        } else if (!strcmp(a, "--ids")) {
            job.ids_only = true;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option '%s'", a);
        } else if (in) {
            return usage_error("more than one input file ('%s')", a);
        } else {
            in = a;
        }
    }
    if (!in)
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
    if (!strcmp(weight, "time")) job.weight = CV_WEIGHT_TIME;
    else if (!strcmp(weight, "calls")) job.weight = CV_WEIGHT_CALLS;
    else return usage_error("unknown --weight '%s' (time or calls)", weight);

    fr_cli_trace trace;
    int rc = fr_cli_open(&trace, "convert", in, binary);
    if (rc)
        return rc;
    trace.return_meta = true;   /* LOST markers reach the call tracker, yaml shows all */
    job.trace = &trace;
    job.in_path = in;
    job.info = trace.info;
    job.meta = &trace.meta;
    job.symbols = trace.symbols;
    job.have_names = binary || trace.meta.n_functions > 0 ||
                     (trace.meta.executable && trace.meta.executable[0] &&
                      access(trace.meta.executable, R_OK) == 0);
    job.ticks_per_second = trace.ticks_per_second;
    if (job.ticks_per_second == 0) {
        fr_cli_input_error("convert", "%s: offset 8: the clock frequency is 0", in);
        fr_cli_close(&trace);
        return FR_EXIT_BAD_INPUT;
    }

    if (!out_path || !strcmp(out_path, "-")) {
        job.out = stdout;
        job.out_path = "<stdout>";
    } else {
        job.out = fopen(out_path, "wb");
        job.out_path = out_path;
        if (!job.out) {
            fr_cli_close(&trace);
            /* the environment, not the command line, is at fault: exit 1 */
            return fr_cli_input_error("convert", "cannot create %s: %s", out_path, strerror(errno));
        }
    }
    rc = convert(&job);
    if (job.out != stdout && fclose(job.out) != 0 && rc == FR_EXIT_OK)
        rc = fr_cli_input_error("convert", "writing %s: %s", out_path, strerror(errno));
    int crc = fr_cli_close(&trace);
    return rc ? rc : crc;
}
