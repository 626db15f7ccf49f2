/*
 * commands.h - the `flightrec` subcommands, one file each (cmd_<name>.c).
 * Each takes argv starting at the subcommand's name and returns the process exit code:
 * 0 success, 1 bad input data, 2 bad usage. Each file also declares the command's table
 * (fr_cmd_<name>: options, help; cli_options.h), listed in command_list.c.
 */
#ifndef FLIGHTREC_CLI_COMMANDS_H
#define FLIGHTREC_CLI_COMMANDS_H

#include <stddef.h>

enum { FR_EXIT_OK = 0, FR_EXIT_BAD_INPUT = 1, FR_EXIT_USAGE = 2 };

struct fr_cli_command;
extern const struct fr_cli_command fr_cmd_record, fr_cmd_doctor, fr_cmd_info, fr_cmd_dump,
    fr_cmd_account, fr_cmd_stack, fr_cmd_graph, fr_cmd_replay, fr_cmd_convert,
    fr_cmd_decode_dat, fr_cmd_decode_perf, fr_cmd_snapshot, fr_cmd_recover;

int cmd_record(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_account(int argc, char **argv);
int cmd_stack(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_decode_dat(int argc, char **argv);
int cmd_decode_perf(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_recover(int argc, char **argv);

/* recover's work, also run by record for a process that left a backing file: the
 * trace of the backing file IN into OUT ("-": stdout). FR_RECOVER_* (backing_recover.h);
 * on failure err says why. rep may be NULL. */
struct fr_recover_report;
int fr_recover_file(const char *in, const char *out, struct fr_recover_report *rep, char *err,
                    size_t errcap);
/* The same onto the trace a stream=1 process was appending to when it died: its torn
 * last block cut, the buffers it had not streamed and the end appended (FR_RECOVER_*;
 * FR_RECOVER_BAD when the trace is not one, or is whole already). */
int fr_recover_onto(const char *in, const char *trace, struct fr_recover_report *rep, char *err,
                    size_t errcap);
/* 1 when path is an XRay FDR trace without its end (a stream=1 process died writing
 * it), 0 when it has its end or is something else, -1 when it cannot be read. */
int fr_trace_unfinished(const char *path);

#endif
