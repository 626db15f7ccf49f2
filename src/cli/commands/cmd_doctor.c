/*
 * cmd_doctor.c - `flightrec doctor PROGRAM`: can `flightrec record` trace this program
 * here, and if not, why. Reads the program's ELF file (program_facts.h, the same facts
 * record decides on), never runs it, and looks at this machine: Linux user_events, the
 * clock the recorder would use.
 * Exit status 0 when `flightrec record -- PROGRAM` would trace it, 1 when not (the
 * "verdict" line says why), 2 for bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/port.h"
#include "cli_common.h"
#include "program_facts.h"
#include "text_escape.h"
#include "cli_options.h"
#include "cli_start.h"
#include "user_events_probe.h"

static void kernel_clocksource(char *buf, size_t n)
{
    snprintf(buf, n, "unknown");
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
    if (!f)
        return;
    if (fgets(buf, (int)n, f))
        buf[strcspn(buf, "\n")] = 0;
    fclose(f);
}

/* ---------------------------------------------------------------- parse */

struct doctor_opts {
    const char *format, *output;
};

static const fr_cli_opt doctor_options[] = {
    FR_CLI_OPT_FORMAT(struct doctor_opts, format, " F", "text|json", "unknown format '%s' (text or json)",
                      "text (default: \"key: value\" lines) or json"),
    FR_CLI_OPT_JSON(struct doctor_opts, format),
    FR_CLI_OPT_OUTPUT(struct doctor_opts, output, " FILE", "write to FILE instead of standard output"),
    FR_CLI_OPT_HELP("this text"),
    {0},
};

const fr_cli_command fr_cmd_doctor = {
    .name = "doctor",
    .summary = "can this program be traced here? (instrumentation, runtime, kernel)",
    .run = cmd_doctor,
    .head = "usage: flightrec doctor PROGRAM [options]\n"
            "Says whether `flightrec record -- PROGRAM` can trace PROGRAM, without running it:\n"
            "its instrumentation (XRay sleds and how many functions have them, or gcc's\n"
            "-finstrument-functions hooks), the runtime it links (libflightrec, compiler-rt's\n"
            "XRay, none: then record preloads libflightrec.so), static or dynamic linking, and on\n"
            "this machine whether its structured events would reach Linux user_events (and if\n"
            "not, why: permissions, tracefs not mounted, a kernel without CONFIG_USER_EVENTS)\n"
            "and which clock the recorder would use.\n"
            "\n"
            "options:\n",
    .options = doctor_options,
    .column = 22,
    .tail = "Exit status: 0 PROGRAM can be traced, 1 it cannot (the verdict says why), 2 bad\n"
            "usage.\n",
    .bad_option = fr_cli_bad_option_named,
};

/* ---------------------------------------------------------------- the command */

int cmd_doctor(int argc, char **argv)
{
    const char *cmd = "doctor";
    struct doctor_opts o = {.format = "text"};
    const char *path;
    int prc = fr_cli_parse_one(&fr_cmd_doctor, argc, argv, &o, "program", "no program given",
                               &path);
    if (prc)
        return prc == FR_CLI_HELP_SHOWN ? FR_EXIT_OK : prc;
    const char *output = o.output;
    bool json = !strcmp(o.format, "json");

    char *program = fr_program_resolve(path);
    if (!program)
        return fr_cli_input_error(cmd, "%s: command not found", path);
    fr_program_facts f;
    char err[1024];
    if (fr_program_inspect(program, &f, err, sizeof err) != 0) {
        free(program);
        return fr_cli_input_error(cmd, "%s", err);
    }

    /* The same decision as record's (cmd_record.c). */
    const char *instrumentation, *runtime, *verdict;
    bool ok = true;
    char sleds[128];
    if (f.has_sleds) {
        snprintf(sleds, sizeof sleds, "XRay sleds: %llu functions (%llu sleds)",
                 (unsigned long long)f.sled_functions, (unsigned long long)f.sleds);
        instrumentation = sleds;
    } else if (f.has_cyg_hooks) {
        instrumentation = "-finstrument-functions hooks (__cyg_profile_func_enter)";
    } else {
        instrumentation = "none";
    }
    if (f.needs_flightrec_so)
        runtime = "libflightrec.so (linked)";
    else if (f.links_flightrec)
        runtime = "libflightrec (linked statically)";
    else if (f.xray_runtime)
        runtime = f.dynamic ? "compiler-rt XRay (linked statically; record preloads "
                              "libflightrec.so, which takes the sleds over)"
                            : "compiler-rt XRay (linked statically)";
    else
        runtime = f.dynamic ? "none (record preloads libflightrec.so)" : "none";
    if (!f.has_sleds && !f.has_cyg_hooks) {
        ok = false;
        verdict = "cannot be traced: no function instrumentation; build with clang "
                  "-fxray-instrument -fxray-instruction-threshold=1 or gcc "
                  "-finstrument-functions";
    } else if (f.setid) {
        ok = false;
        verdict = "cannot be traced: set-user-ID/set-group-ID, so LD_PRELOAD and "
                  "FLIGHTREC_OPTIONS are ignored (secure execution); trace a copy "
                  "without the bit";
    } else if (!f.links_flightrec && !f.dynamic) {
        ok = false;
        verdict = "cannot be traced: statically linked without libflightrec, so "
                  "libflightrec.so cannot be preloaded; relink with libflightrec "
                  "(pkg-config --static --libs flightrec) or link dynamically";
    } else {
        verdict = "can be traced: flightrec record -- PROGRAM";
    }
    char ue[512], clocksource[64];
    int ue_available = fr_user_events_probe(ue, sizeof ue);
    kernel_clocksource(clocksource, sizeof clocksource);
    int tsc = fr_arch_tsc_invariant();
    const char *clock = tsc ? "tsc (the CPU's TSC is invariant)"
                            : "monotonic (CLOCK_MONOTONIC: the CPU's TSC is not invariant)";

    FILE *out = fr_cli_open_output(cmd, output);
    if (!out) {
        free(program);
        return FR_EXIT_BAD_INPUT;
    }
    if (json) {
        fputs("{\"program\": ", out);
        fr_cli_json_string(out, program);
        fprintf(out, ", \"instrumented\": %s, \"xray_sleds\": %s, \"sled_functions\": %llu, "
                     "\"sleds\": %llu, \"cyg_profile_hooks\": %s, \"links_flightrec\": %s, "
                     "\"compiler_rt_xray\": %s, \"dynamic\": %s, \"setid\": %s, ",
                f.has_sleds || f.has_cyg_hooks ? "true" : "false", f.has_sleds ? "true" : "false",
                (unsigned long long)f.sled_functions, (unsigned long long)f.sleds,
                f.has_cyg_hooks ? "true" : "false", f.links_flightrec ? "true" : "false",
                f.xray_runtime ? "true" : "false", f.dynamic ? "true" : "false",
                f.setid ? "true" : "false");
        fprintf(out, "\"user_events\": %s, \"user_events_detail\": ", ue_available ? "true" : "false");
        fr_cli_json_string(out, ue);
        fprintf(out, ", \"clock\": \"%s\", \"kernel_clocksource\": ", tsc ? "tsc" : "monotonic");
        fr_cli_json_string(out, clocksource);
        fprintf(out, ", \"traceable\": %s, \"verdict\": ", ok ? "true" : "false");
        fr_cli_json_string(out, verdict);
        fputs("}\n", out);
    } else {
        fputs("program: ", out);
        fr_text_put(out, program);
        fprintf(out, "\ninstrumentation: %s\n", instrumentation);
        fprintf(out, "runtime: %s\n", runtime);
        fprintf(out, "linking: %s%s\n", f.dynamic ? "dynamic" : "static",
                f.setid ? ", set-user-ID or set-group-ID" : "");
        fprintf(out, "user_events: %s ", ue_available ? "available," : "unavailable,");
        fr_text_put(out, ue);
        fprintf(out, "\nclock: %s; kernel clocksource %s\n", clock, clocksource);
        fprintf(out, "verdict: %s\n", verdict);
    }
    free(program);
    int rc = fr_cli_close_output(cmd, output, out);
    return rc ? rc : ok ? FR_EXIT_OK : FR_EXIT_BAD_INPUT;
}
