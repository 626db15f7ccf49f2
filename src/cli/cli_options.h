/*
 * cli_options.h - the one option parser of every `flightrec` command, and the help text
 * made from the same tables.
 *
 * A command declares its options once, as a table of fr_cli_opt (long and short name, how
 * its value is written, its help text, and the setter that checks the value and stores it
 * into the command's own options struct), inside an fr_cli_command (name, summary, the
 * help's text before and after the options). fr_cli_parse reads argv with that table;
 * fr_cli_print_help prints the help from it, and `flightrec COMMAND --help` is what
 * man/generate.py turns into the man pages and the bash and zsh completions: the options
 * a command takes, the options its help lists and the options its shell completion offers
 * come from the one table (tests/cli_option_tables.sh checks it).
 *
 * Syntax, the same for every command: "--name VALUE" or "--name=VALUE" (an unambiguous
 * prefix of a long name is taken for it, as getopt_long does), "-x VALUE", "-xVALUE" or
 * "-x=VALUE", short flags together ("-rv"), an optional value only as "--name=VALUE",
 * "--" ends the options, "-" alone is an operand (standard input). Operands may stand
 * between options, unless the command's options end at its first operand (record:
 * what follows is the program's command line).
 */
#ifndef FLIGHTREC_CLI_OPTIONS_H
#define FLIGHTREC_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct fr_cli_opt fr_cli_opt;

/* Checks VALUE and stores it in FIELD (the command's options struct + o->offset).
 * VALUE is NULL for an option that takes none (and for an optional value not given).
 * Returns 0, or FR_EXIT_USAGE after a message naming the command. */
typedef int (*fr_cli_opt_set)(const char *command, const fr_cli_opt *o, const char *value,
                              void *field);

struct fr_cli_opt {
    const char    *name;     /* long name without "--"; NULL ends a table */
    char           letter;   /* short name, or 0 */
    /* The value as the help writes it after the long name: " FILE" (required),
     * "=MODE" (required, shown with '='), "[=WHEN]" (optional: only --name=WHEN);
     * NULL: the option takes no value. */
    const char    *arg;
    const char    *help;     /* its help text; lines separated by '\n' */
    fr_cli_opt_set set;      /* NULL only for --help (fr_cli_parse prints the help) */
    size_t         offset;   /* of its field in the command's options struct */
    const char    *choices;  /* fr_cli_set_choice: the accepted words, "text|csv|json" */
    /* fr_cli_set_choice: the message for another word, a format of one %s (the value):
     * "unknown format '%s' (text, csv, json)" */
    const char    *refusal;
    const char    *alias;    /* another long name taken for it ("colour"), or NULL */
};

typedef struct fr_cli_command {
    const char       *name;      /* "account" */
    const char       *summary;   /* its line in `flightrec --help` */
    int             (*run)(int argc, char **argv);
    const char       *head;      /* the help before the options (usage line, description) */
    const fr_cli_opt *options;   /* ends with {0} */
    int               column;    /* where the options' help texts start in the help */
    const char       *tail;      /* the help after the options */
    bool              options_end_at_operand;
    /* How the command says that ARG is not one of its options (missing false) or lacks its
     * value (missing true), then returns FR_EXIT_USAGE: the words it has always used.
     * NULL: "bad option or missing value: 'ARG'" and the "Try ... --help" line. */
    int             (*bad_option)(const struct fr_cli_command *cmd, const char *arg, bool missing);
} fr_cli_command;

/* Every command, in the order of `flightrec --help` (command_list.c); NULL-terminated. */
extern const fr_cli_command *const fr_cli_commands[];

/* What fr_cli_parse found besides the options. */
typedef struct fr_cli_operands {
    char **v;     /* the operands, in their order (they are argv's own strings) */
    int    n;
} fr_cli_operands;

/* Parses argv (argv[0]: the command's name) with cmd->options into OPTS (the command's
 * options struct, holding its defaults). Returns 0 with the operands in *ops (argv is
 * reordered: they are moved to argv[1..n], argv[n + 1] is NULL); FR_EXIT_USAGE after a
 * message ("bad option or missing value: '--x'", or the setter's); or FR_CLI_HELP_SHOWN
 * after -h or --help printed the help on stdout (the command then exits 0). */
enum { FR_CLI_HELP_SHOWN = -1 };
int  fr_cli_parse(const fr_cli_command *cmd, int argc, char **argv, void *opts,
                  fr_cli_operands *ops);
/* A command of one operand: 0 when there is one, else FR_EXIT_USAGE after "one WHAT only
 * ('X' is extra)" or the message NONE. */
int  fr_cli_one_operand(const char *command, const fr_cli_operands *ops, const char *what,
                        const char *none);
/* The command's whole --help text. */
void fr_cli_print_help(const fr_cli_command *cmd, FILE *out);
/* The tag of an option as the help shows it: "-o, --output FILE". */
void fr_cli_opt_tag(const fr_cli_opt *o, char *buf, size_t size);

/* fr_cli_command.bad_option of the commands that say "unknown option 'ARG'" and "option
 * ARG needs a value", with the "Try ... --help" line. */
int fr_cli_bad_option_named(const fr_cli_command *cmd, const char *arg, bool missing);

/* Setters (fr_cli_opt.set) for the common kinds of value. */
int fr_cli_set_flag(const char *command, const fr_cli_opt *o, const char *value, void *field);   /* bool = true */
int fr_cli_set_string(const char *command, const fr_cli_opt *o, const char *value, void *field); /* const char * (the last wins) */
int fr_cli_set_choice(const char *command, const fr_cli_opt *o, const char *value, void *field); /* const char *, one of o->choices */
bool fr_cli_is_choice(const fr_cli_opt *o, const char *value);   /* value is one of o->choices */
int fr_cli_set_count(const char *command, const fr_cli_opt *o, const char *value, void *field);  /* uint64_t, a count */
int fr_cli_set_tids(const char *command, const fr_cli_opt *o, const char *value, void *field);   /* fr_cli_tids, added to */
int fr_cli_set_demangle(const char *command, const fr_cli_opt *o, const char *value, void *field); /* no field: fr_cli_parse_demangle */
int fr_cli_set_json(const char *command, const fr_cli_opt *o, const char *value, void *field);   /* const char * = "json" (--json) */
int fr_cli_set_color(const char *command, const fr_cli_opt *o, const char *value, void *field);  /* int FR_COLOR_* */

/* Table entries for options several commands share, with their usual help. */
#define FR_CLI_OPT_HELP(text) {.name = "help", .letter = 'h', .help = (text)}
#define FR_CLI_OPT_OUTPUT(type, field, arg_, text)                                              \
    {.name = "output", .letter = 'o', .arg = (arg_), .help = (text), .set = fr_cli_set_string,  \
     .offset = offsetof(type, field)}
#define FR_CLI_OPT_BINARY(type, field, text)                                                   \
    {.name = "binary", .arg = " BIN", .help = (text), .set = fr_cli_set_string,                \
     .offset = offsetof(type, field)}
#define FR_CLI_OPT_FORMAT(type, field, arg_, list, refusal_, text)                              \
    {.name = "format", .letter = 'f', .arg = (arg_), .help = (text), .set = fr_cli_set_choice,  \
     .offset = offsetof(type, field), .choices = (list), .refusal = (refusal_)}
#define FR_CLI_OPT_DEMANGLE(text)                                                              \
    {.name = "demangle", .arg = "=MODE", .help = (text), .set = fr_cli_set_demangle}
#define FR_CLI_OPT_TIDS(type, field, arg_, text)                                                \
    {.name = "tid", .arg = (arg_), .help = (text), .set = fr_cli_set_tids,                      \
     .offset = offsetof(type, field)}
#define FR_CLI_OPT_FLAG(name_, letter_, type, field, text)                                     \
    {.name = (name_), .letter = (letter_), .help = (text), .set = fr_cli_set_flag,             \
     .offset = offsetof(type, field)}
#define FR_CLI_OPT_JSON(type, field)                                                           \
    {.name = "json", .help = "the same as --format json", .set = fr_cli_set_json,              \
     .offset = offsetof(type, field)}
#define FR_CLI_OPT_COLOR(type, field, text)                                                    \
    {.name = "color", .arg = "[=WHEN]", .help = (text), .set = fr_cli_set_color,               \
     .offset = offsetof(type, field), .alias = "colour"}

/* The help texts several commands share. */
#define FR_CLI_HELP_DEMANGLE                                                                   \
    "C++ names: full (default), simple (no template arguments nor\n"                          \
    "parameter lists: ns::Box::get) or no (mangled, as linked)"
#define FR_CLI_HELP_VERBOSE                                                                    \
    "the calls/threads/unmatched summary on standard error even\n"                            \
    "when every call matched"

#endif
