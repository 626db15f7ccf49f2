/*
 * cli_option_tables.c - prints every command's option table (cli_options.h), one line
 * per option: "COMMAND --LONG [-X]", for tests/cli_option_tables.sh, which checks that
 * each is in the command's --help, man page and bash and zsh completions. A command
 * without a table prints "COMMAND (no table)": the script fails on it.
 */
#include <stdio.h>

#include "cli_options.h"

int main(void)
{
    for (const fr_cli_command *const *c = fr_cli_commands; *c; c++) {
        if (!(*c)->options) {
            printf("%s (no table)\n", (*c)->name);
            continue;
        }
        for (const fr_cli_opt *o = (*c)->options; o->name; o++) {
            printf("%s --%s", (*c)->name, o->name);
            if (o->letter)
                printf(" -%c", o->letter);
            putchar('\n');
        }
    }
    return 0;
}
