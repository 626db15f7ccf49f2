/* cmd_convert.c - placeholder until the subcommand lands. */
#include <stdio.h>
#include "commands.h"

int cmd_convert(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr, "flightrec %s: not implemented yet\n", argv[0]);
    return FR_EXIT_USAGE;
}
