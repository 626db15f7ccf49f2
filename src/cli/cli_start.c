/*
 * cli_start.c - the start every command of one operand shares (cli_start.h).
 */
#include <stddef.h>
#include "cli_start.h"

int fr_cli_parse_one(const fr_cli_command *cmd, int argc, char **argv, void *opts,
                     const char *what, const char *none, const char **operand)
{
    fr_cli_operands ops;
    int rc = fr_cli_parse(cmd, argc, argv, opts, &ops);
    if (!rc)
        rc = fr_cli_one_operand(cmd->name, &ops, what, none);
    if (!rc)
        *operand = ops.v[0];
    return rc;
}

int fr_cli_start_trace(fr_cli_trace *t, const fr_cli_command *cmd, int argc, char **argv,
                       void *opts, const char *const *binary)
{
    const char *file;
    int rc = fr_cli_parse_one(cmd, argc, argv, opts, "trace file", "no trace file given", &file);
    return rc ? rc : fr_cli_open(t, cmd->name, file, binary ? *binary : NULL);
}
