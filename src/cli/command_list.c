/*
 * command_list.c - every `flightrec` command, in the order `flightrec --help` lists them.
 * Each command's table (name, summary, options, help) is declared in its own file,
 * commands/cmd_<name>.c; a new command is registered by adding it here.
 */
#include "cli_options.h"
#include "commands.h"

const fr_cli_command *const fr_cli_commands[] = {
    &fr_cmd_record,  &fr_cmd_doctor, &fr_cmd_info,    &fr_cmd_dump,
    &fr_cmd_account, &fr_cmd_stack,  &fr_cmd_graph,   &fr_cmd_replay,
    &fr_cmd_convert, &fr_cmd_decode_dat, &fr_cmd_decode_perf, &fr_cmd_snapshot,
    &fr_cmd_recover,
    NULL,
};
