/*
 * cli_options.c - the one option parser of the `flightrec` commands, and their help texts,
 * both from each command's table of options (cli_options.h).
 */
#include "cli_options.h"

#include <stdint.h>
#include <string.h>

#include "analysis_cli.h"
#include "cli_common.h"

/* ------------------------------------------------------------------ help */

void fr_cli_opt_tag(const fr_cli_opt *o, char *buf, size_t size)
{
    char shorty[8] = "";
    if (o->letter)
        snprintf(shorty, sizeof shorty, "-%c, ", o->letter);
    snprintf(buf, size, "%s--%s%s", shorty, o->name, o->arg ? o->arg : "");
}

void fr_cli_print_help(const fr_cli_command *cmd, FILE *out)
{
    fputs(cmd->head, out);
    for (const fr_cli_opt *o = cmd->options; o->name; o++) {
        char tag[96];
        fr_cli_opt_tag(o, tag, sizeof tag);
        int pad = cmd->column - 2 - (int)strlen(tag);
        fprintf(out, "  %s%*s", tag, pad < 2 ? 2 : pad, "");
        /* each line of the help text, the later ones indented to the column */
        for (const char *line = o->help; line;) {
            const char *nl = strchr(line, '\n');
            fprintf(out, "%.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
            line = nl ? nl + 1 : NULL;
            if (line)
                fprintf(out, "%*s", cmd->column, "");
        }
    }
    fputs(cmd->tail, out);
}

/* ------------------------------------------------------------------ parsing */

/* -h and --help: every command takes them (docs/CLI.md), listed in its help or not. */
static const fr_cli_opt builtin_help = {.name = "help", .letter = 'h'};

/* An option that is not the command's, a value missing, or a value given to an option
 * that takes none: in the command's words (fr_cli_command.bad_option), else "bad option or
 * missing value: '--bogus'". */
static int bad_option(const fr_cli_command *cmd, const char *arg, bool missing)
{
    if (cmd->bad_option)
        return cmd->bad_option(cmd, arg, missing);
    return fr_cli_usage_error(cmd->name, "bad option or missing value: '%s'", arg);
}

int fr_cli_bad_option_named(const fr_cli_command *cmd, const char *arg, bool missing)
{
    if (missing)
        return fr_cli_usage_error(cmd->name, "option %s needs a value", arg);
    return fr_cli_usage_error(cmd->name, "unknown option '%s'", arg);
}

/* The option of long name ARG + 2 (LEN bytes: "--name=value" stops at '='): an exact
 * name or alias, else the one option it is a prefix of (as getopt_long). NULL when there
 * is none, or several. */
static const fr_cli_opt *find_long(const fr_cli_command *cmd, const char *arg, size_t len)
{
    const fr_cli_opt *found = NULL;
    int prefixed = 0;
    for (const fr_cli_opt *o = cmd->options; o->name; o++) {
        if ((strlen(o->name) == len && !strncmp(o->name, arg + 2, len)) ||
            (o->alias && strlen(o->alias) == len && !strncmp(o->alias, arg + 2, len)))
            return o;
        if (len && !strncmp(o->name, arg + 2, len)) {
            found = o;
            prefixed++;
        }
    }
    if (prefixed == 1)
        return found;
    if (!prefixed && len == 4 && !strncmp(arg + 2, "help", 4))
        return &builtin_help;
    return NULL;
}

static const fr_cli_opt *find_short(const fr_cli_command *cmd, char letter)
{
    for (const fr_cli_opt *o = cmd->options; o->name; o++)
        if (o->letter && o->letter == letter)
            return o;
    return letter == 'h' ? &builtin_help : NULL;
}

/* Hands VALUE to the option's setter; --help prints the help. */
static int apply(const fr_cli_command *cmd, const fr_cli_opt *o, const char *value, void *opts)
{
    if (!o->set) {
        fr_cli_print_help(cmd, stdout);
        return FR_CLI_HELP_SHOWN;
    }
    return o->set(cmd->name, o, value, (char *)opts + o->offset);
}

/* One long option at argv[*i]; may take argv[*i + 1] as its value. */
static int parse_long(const fr_cli_command *cmd, int argc, char **argv, int *i, void *opts)
{
    const char *a = argv[*i], *eq = strchr(a, '=');
    const fr_cli_opt *o = find_long(cmd, a, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
    if (!o || (eq && !o->arg))
        return bad_option(cmd, a, false);
    bool required = o->arg && o->arg[0] != '[';
    if (eq || !required)
        return apply(cmd, o, eq ? eq + 1 : NULL, opts);
    if (*i + 1 >= argc)
        return bad_option(cmd, a, true);
    return apply(cmd, o, argv[++*i], opts);
}

/* Short options at argv[*i]: flags together ("-rv"), the last may take a value ("-ofile",
 * "-o=file", or "-o file"). */
static int parse_short(const fr_cli_command *cmd, int argc, char **argv, int *i, void *opts)
{
    const char *a = argv[*i];
    for (const char *p = a + 1; *p; p++) {
        const fr_cli_opt *o = find_short(cmd, *p);
        if (!o)
            return bad_option(cmd, a, false);
        if (!o->arg || o->arg[0] == '[') {
            int rc = apply(cmd, o, NULL, opts);
            if (rc)
                return rc;
            continue;
        }
        if (p[1])
            return apply(cmd, o, p[1] == '=' ? p + 2 : p + 1, opts);
        if (*i + 1 >= argc)
            return bad_option(cmd, a, true);
        return apply(cmd, o, argv[++*i], opts);
    }
    return 0;
}

int fr_cli_parse(const fr_cli_command *cmd, int argc, char **argv, void *opts,
                 fr_cli_operands *ops)
{
    /* Operands are moved down to argv[1..n] as they are met: never past what was read. */
    int n = 0, i;
    for (i = 1; i < argc; i++) {
        char *a = argv[i];
        int rc = 0;
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (a[0] != '-' || !a[1]) {
            argv[1 + n++] = a;
            if (cmd->options_end_at_operand) {
                i++;
                break;
            }
            continue;
        } else if (a[1] == '-') {
            rc = parse_long(cmd, argc, argv, &i, opts);
        } else {
            rc = parse_short(cmd, argc, argv, &i, opts);
        }
        if (rc)
            return rc;
    }
    for (; i < argc; i++)
        argv[1 + n++] = argv[i];
    argv[1 + n] = NULL;   /* (1 + n <= argc): the operands end as an argv does, for execv */
    ops->v = argv + 1;
    ops->n = n;
    return 0;
}

int fr_cli_one_operand(const char *command, const fr_cli_operands *ops, const char *what,
                       const char *none)
{
    if (ops->n > 1)
        return fr_cli_usage_error(command, "one %s only ('%s' is extra)", what, ops->v[1]);
    if (ops->n < 1)
        return fr_cli_usage_error(command, "%s", none);
    return 0;
}

/* ------------------------------------------------------------------ setters */

int fr_cli_set_flag(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    (void)command, (void)o, (void)value;
    *(bool *)field = true;
    return 0;
}

int fr_cli_set_string(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    (void)command, (void)o;
    *(const char **)field = value;
    return 0;
}

bool fr_cli_is_choice(const fr_cli_opt *o, const char *value)
{
    size_t n = strlen(value);
    for (const char *c = o->choices; *c;) {
        size_t len = strcspn(c, "|");
        if (len == n && !strncmp(c, value, n))
            return true;
        c += len + (c[len] == '|');
    }
    return false;
}

int fr_cli_set_choice(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    if (!fr_cli_is_choice(o, value)) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        char why[256];
        snprintf(why, sizeof why, o->refusal, value);   /* (the tables' own formats) */
#pragma GCC diagnostic pop
        return fr_cli_usage_error(command, "%s", why);
    }
    *(const char **)field = value;
    return 0;
}

int fr_cli_set_count(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    char flag[64];
    snprintf(flag, sizeof flag, "--%s", o->name);
    return fr_acli_parse_count(command, flag, value, field) ? FR_EXIT_USAGE : 0;
}

int fr_cli_set_tids(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    (void)o;
    return fr_cli_parse_tids(command, value, field) ? FR_EXIT_USAGE : 0;
}

int fr_cli_set_demangle(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    (void)o, (void)field;
    return fr_cli_parse_demangle(command, value) ? FR_EXIT_USAGE : 0;
}

int fr_cli_set_json(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    (void)command, (void)o, (void)value;
    *(const char **)field = "json";
    return 0;
}

int fr_cli_set_color(const char *command, const fr_cli_opt *o, const char *value, void *field)
{
    (void)o;
    return fr_cli_parse_color(command, value, field) ? FR_EXIT_USAGE : 0;
}
