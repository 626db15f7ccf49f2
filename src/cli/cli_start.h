/*
 * cli_start.h - how a command of one operand starts: its options parsed, its one
 * operand checked, and for a command of one trace, the trace opened (cli_start.c).
 */
#ifndef FLIGHTREC_CLI_START_H
#define FLIGHTREC_CLI_START_H

#include "cli_common.h"
#include "cli_options.h"

/* fr_cli_parse, then fr_cli_one_operand: 0 with *operand set, or what either returned. */
int  fr_cli_parse_one(const fr_cli_command *cmd, int argc, char **argv, void *opts,
                      const char *what, const char *none, const char **operand);
/* fr_cli_parse_one for one "trace file", then fr_cli_open of it with the binary that
 * *binary names once the options are parsed (a field of opts; NULL: none). 0 with t
 * open, or what failed returned (FR_CLI_HELP_SHOWN after --help). */
int  fr_cli_start_trace(fr_cli_trace *t, const fr_cli_command *cmd, int argc, char **argv,
                        void *opts, const char *const *binary);

#endif
