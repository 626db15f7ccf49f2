/*
 * cmd_dump.c - `flightrec dump FILE`: one line per record, in file order.
 *
 *   offset  time_us  tid  cpu  kind  details
 *
 * time_us is relative to the trace's time origin (FR_TE_CLOCK's base, else the first
 * thread block's TSC), exact to the nanosecond; without a known clock frequency it is
 * the raw tick difference.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "eventheader_decode.h"
#include "text_escape.h"
#include "cli_options.h"
#include "cli_start.h"

static const char *kind_name(const fr_record *r)
{
    switch (r->kind) {
    case FR_REC_ENTER:     return "enter";
    case FR_REC_EXIT:      return "exit";
    case FR_REC_TAIL_EXIT: return "tail-exit";
    case FR_REC_ENTER_ARG: return "enter-arg";
    case FR_REC_CUSTOM:    return "custom";
    case FR_REC_TYPED:     return "typed";
    case FR_REC_BLOCK:     return "block";
    }
    return "?";
}

/* Our records' names come from fr_format.h's one table; a type of ours this build does
 * not know (a newer writer) still says it is ours. */
static const char *meta_type_name(uint16_t type)
{
    const char *name = fr_te_name(type);
    return name ? name : "unknown flightrec record";
}

/* Payload as a C-like string, at most 64 bytes shown. */
static void print_bytes(FILE *out, const uint8_t *p, uint32_t n)
{
    uint32_t shown = n > 64 ? 64 : n;
    fputc('"', out);
    for (uint32_t i = 0; i < shown; i++) {
        if (p[i] == '"' || p[i] == '\\')
            fprintf(out, "\\%c", p[i]);
        else if (isprint(p[i]))
            fputc(p[i], out);
        else
            fprintf(out, "\\x%02x", p[i]);
    }
    fputc('"', out);
    if (shown < n)
        fputs("...", out);
}

/* FR_TE_EVENT: tracepoint name (NUL-terminated), then EventHeader bytes. Prints
 * tracepoint="NAME" and the event decoded to the reference decoder's JSON, or the reason
 * it does not decode. */
static void print_structured_event(FILE *out, const fr_record *r)
{
    const uint8_t *nul = memchr(r->data, 0, r->size);
    size_t n = nul ? (size_t)(nul - r->data) : r->size;
    fprintf(out, " tracepoint=");
    print_bytes(out, r->data, (uint32_t)n);
    char err[256] = "no NUL after the tracepoint name";
    fr_eh_event ev;
    if (nul && fr_eh_decode((const char *)r->data, nul + 1, r->size - n - 1, &ev, err,
                            sizeof err) == 0) {
        /* Render to memory first, so that a payload error leaves no half-written JSON. */
        char *json = NULL;
        size_t json_len = 0;
        FILE *mem = open_memstream(&json, &json_len);
        int rc = mem ? fr_eh_write_event_json(&ev, mem, err, sizeof err) : -1;
        if (mem)
            fclose(mem);
        if (rc == 0 && json) {
            fprintf(out, " %s", json);
            free(json);
            return;
        }
        free(json);
    }
    fputs(" undecoded: ", out);
    fr_text_put(out, err);   /* may quote the event's own bytes */
}

static void print_details(FILE *out, fr_cli_trace *t, const fr_record *r)
{
    switch (r->kind) {
    case FR_REC_ENTER_ARG:
        fprintf(out, "%u ", r->function_id);
        fr_text_put(out, fr_cli_name(t, r->function_id));
        fprintf(out, " arg=%" PRIu64, r->arg);
        break;
    case FR_REC_ENTER:
    case FR_REC_EXIT:
    case FR_REC_TAIL_EXIT:
        fprintf(out, "%u ", r->function_id);
        fr_text_put(out, fr_cli_name(t, r->function_id));
        break;
    case FR_REC_CUSTOM:
        fprintf(out, "size=%u ", r->size);
        print_bytes(out, r->data, r->size);
        break;
    case FR_REC_TYPED: {
        const char *ours = r->event_type >= FR_TE_FIRST && r->event_type <= FR_TE_LAST
                               ? meta_type_name(r->event_type) : NULL;
        if (ours)
            fprintf(out, "type=0x%04x(%s) size=%u", r->event_type, ours, r->size);
        else
            fprintf(out, "type=%u size=%u", r->event_type, r->size);
        if (r->event_type == FR_TE_EVENT) {
            print_structured_event(out, r);
        } else if (r->event_type == FR_TE_EVENT_RUN) {
            uint64_t key = 0;
            if (fr_varint_get(r->data, r->data + r->size, &key))
                fprintf(out, " site=%" PRIu64, key >> 1);
            fputs(" undecoded: the file has no metadata for this event's site", out);
        } else if (!ours) {
            fputc(' ', out);
            print_bytes(out, r->data, r->size);
        }
        break;
    }
    case FR_REC_BLOCK:
        fprintf(out, "pid=%d tsc=%" PRIu64 " walltime=%" PRId64 ".%06d", r->pid, r->tsc,
                r->walltime_sec, r->walltime_usec);
        break;
    }
}

/* Bytes as lowercase hex, for JSON. */
static void print_hex(FILE *out, const uint8_t *p, uint32_t n)
{
    putc('"', out);
    for (uint32_t i = 0; i < n; i++)
        fprintf(out, "%02x", p[i]);
    putc('"', out);
}

/* One JSON object (JSON Lines): the text columns, then the details as members. */
static void print_json_record(FILE *out, fr_cli_trace *t, const fr_record *r, const char *time)
{
    fprintf(out, "{\"offset\": %" PRIu64 ", \"time_us\": %s, \"tid\": %d, \"cpu\": %u, "
                 "\"kind\": \"%s\"", r->offset, time, r->tid, r->cpu, kind_name(r));
    switch (r->kind) {
    case FR_REC_ENTER_ARG:
    case FR_REC_ENTER:
    case FR_REC_EXIT:
    case FR_REC_TAIL_EXIT:
        fprintf(out, ", \"function_id\": %u, \"function\": ", r->function_id);
        fr_cli_json_string(out, fr_cli_name(t, r->function_id));
        if (r->kind == FR_REC_ENTER_ARG)
            fprintf(out, ", \"arg\": %" PRIu64, r->arg);
        break;
    case FR_REC_CUSTOM:
        fprintf(out, ", \"size\": %u, \"data_hex\": ", r->size);
        print_hex(out, r->data, r->size);
        break;
    case FR_REC_TYPED: {
        const char *ours = r->event_type >= FR_TE_FIRST && r->event_type <= FR_TE_LAST
                               ? meta_type_name(r->event_type) : NULL;
        fprintf(out, ", \"event_type\": %u, \"size\": %u", r->event_type, r->size);
        if (ours)
            fprintf(out, ", \"flightrec_type\": \"%s\"", ours);
        fprintf(out, ", \"data_hex\": ");
        print_hex(out, r->data, r->size);
        break;
    }
    case FR_REC_BLOCK:
        fprintf(out, ", \"pid\": %d, \"tsc\": %" PRIu64 ", \"walltime\": %" PRId64 ".%06d",
                r->pid, r->tsc, r->walltime_sec, r->walltime_usec);
        break;
    }
    fputs("}\n", out);
}

static const char *kind_color(const fr_cli_colors *k, const fr_record *r)
{
    switch (r->kind) {
    case FR_REC_ENTER:
    case FR_REC_ENTER_ARG: return k->green;
    case FR_REC_EXIT:
    case FR_REC_TAIL_EXIT: return k->blue;
    case FR_REC_CUSTOM:
    case FR_REC_TYPED:     return k->yellow;
    case FR_REC_BLOCK:     return k->magenta;
    }
    return "";
}

static bool is_function(const fr_record *r)
{
    return r->kind <= FR_REC_ENTER_ARG;
}

/* --tid's threads hold tid (the metadata block's records, thread 0, are not shown). */
static bool tid_listed(const fr_cli_tids *tids, int32_t tid)
{
    for (size_t i = 0; i < tids->n; i++)
        if (tids->ids[i] == tid)
            return true;
    return false;
}

/* ---------------------------------------------------------------- parse */

struct dump_opts {
    fr_cli_tids tids;       /* --tid: only these threads' records (repeatable, 12,34) */
    const char *fn_s, *from_s, *to_s, *binary, *format, *output;
    bool        meta;
    int         color;
};

static const fr_cli_opt dump_options[] = {
    FR_CLI_OPT_TIDS(struct dump_opts, tids, " TID[,TID...]",
                    "only records of these threads (repeatable)"),
    {.name = "function", .arg = " ID|NAME", .set = fr_cli_set_string,
     .offset = offsetof(struct dump_opts, fn_s),
     .help = "only function records of this function (and block records)"},
    {.name = "from", .arg = " TIME", .set = fr_cli_set_string,
     .offset = offsetof(struct dump_opts, from_s),
     .help = "only records at or after TIME since the trace start"},
    {.name = "to", .arg = " TIME", .set = fr_cli_set_string, .offset = offsetof(struct dump_opts, to_s),
     .help = "only records before or at TIME since the trace start\n"
             "TIME: a number with unit ns, us (default), ms or s"},
    FR_CLI_OPT_FLAG("meta", 0, struct dump_opts, meta,
                    "also print flightrec's metadata records (FR_TE_* events)"),
    FR_CLI_OPT_BINARY(struct dump_opts, binary,
                      "take symbols from BIN (default: the executable in the trace)"),
    FR_CLI_OPT_DEMANGLE(FR_CLI_HELP_DEMANGLE),
    FR_CLI_OPT_FORMAT(struct dump_opts, format, " F", "text|json", "unknown format '%s' (text or json)",
                      "text (default) or json (JSON Lines: one object per record)"),
    FR_CLI_OPT_JSON(struct dump_opts, format),
    FR_CLI_OPT_OUTPUT(struct dump_opts, output, " FILE", "write to FILE instead of standard output"),
    FR_CLI_OPT_COLOR(struct dump_opts, color, "colour the kind column: auto (default: on a terminal),\n"
                                              "always or never"),
    FR_CLI_OPT_HELP("this text"),
    {0},
};

const fr_cli_command fr_cmd_dump = {
    .name = "dump",
    .summary = "one line per record",
    .run = cmd_dump,
    .head = "usage: flightrec dump FILE [options]\n"
            "Prints one line per record: byte offset, time (us since the trace start), thread,\n"
            "CPU, kind and details (function id and name, argument, event payload).\n"
            "FILE '-' reads the trace from standard input.\n"
            "\n"
            "options:\n",
    .options = dump_options,
    .column = 23,
    .tail = "When --tid, --function, --from or --to select no record at all, a warning says so\n"
            "and the exit status is 1.\n",
    .bad_option = fr_cli_bad_option_named,
};

/* ---------------------------------------------------------------- check */

/* The filters, ready for the records: --function's id (or its name, matched the first
 * time an id is met, then remembered), --from and --to in ticks. */
struct dump_filter {
    const struct dump_opts *o;
    uint32_t fn_id;
    bool     fn_by_name;
    int64_t  from, to;
    uint8_t *name_match;   /* 0 unknown, 1 no, 2 yes; indexed by id, grown on demand */
    size_t   name_match_n;
};

/* --from and --to need the trace's clock: 0, or FR_EXIT_USAGE after a message. */
static int check_filter(struct dump_filter *f, const struct dump_opts *o, const fr_cli_trace *t)
{
    *f = (struct dump_filter){.o = o, .from = INT64_MIN, .to = INT64_MAX};
    if (o->fn_s) {
        char *end;
        unsigned long v = strtoul(o->fn_s, &end, 10);
        if (*o->fn_s && !*end && v <= FR_XRAY_MAX_FUNCTION_ID)
            f->fn_id = (uint32_t)v;
        else
            f->fn_by_name = true;
    }
    const char *bad = o->from_s && fr_cli_parse_duration(o->from_s, t->ticks_per_second, &f->from)
                          ? o->from_s
                    : o->to_s && fr_cli_parse_duration(o->to_s, t->ticks_per_second, &f->to)
                          ? o->to_s
                          : NULL;
    if (bad)
        return fr_cli_usage_error("dump", "expected a time like 1.5ms, 20us, 100ns or 2s, found '%s'",
                                  bad);
    /* since the trace start: a negative TIME would silently mean the start itself */
    if ((o->from_s && f->from < 0) || (o->to_s && f->to < 0))
        return fr_cli_usage_error("dump", "--from and --to count from the trace start: not negative, found '%s'",
                                  o->from_s && f->from < 0 ? o->from_s : o->to_s);
    return 0;
}

/* ---------------------------------------------------------------- run */

/* Whether --function selects r (a function record of that id or name). */
static bool function_selected(struct dump_filter *f, fr_cli_trace *t, const fr_record *r)
{
    const char *fn_s = f->o->fn_s;
    if (!is_function(r))
        return false;
    if (f->fn_by_name && r->function_id >= (1u << 20))
        /* Ids beyond a sane table (a damaged file): compare without a cache. */
        return !strcmp(fr_cli_name(t, r->function_id), fn_s);
    if (!f->fn_by_name)
        return r->function_id == f->fn_id;
    if (r->function_id >= f->name_match_n) {
        size_t n = (size_t)r->function_id * 2 + 16;
        uint8_t *m = realloc(f->name_match, n);
        if (!m)
            return false;
        memset(m + f->name_match_n, 0, n - f->name_match_n);
        f->name_match = m;
        f->name_match_n = n;
    }
    if (!f->name_match[r->function_id])
        f->name_match[r->function_id] = strcmp(fr_cli_name(t, r->function_id), fn_s) ? 1 : 2;
    return f->name_match[r->function_id] == 2;
}

/* Every record the filters select, one line (or one JSON object) each; the number of
 * records selected (not counting context blocks). */
static uint64_t print_records(FILE *out, fr_cli_trace *t, struct dump_filter *f)
{
    const struct dump_opts *o = f->o;
    bool json = !strcmp(o->format, "json");
    fr_cli_colors k = fr_cli_colors_for(!json && fr_cli_use_color(o->color, out));
    uint64_t matched = 0;
    if (!json)
        fprintf(out, "%s%-10s %14s %8s %4s %-9s %s%s\n", k.bold, "offset", "time_us", "tid", "cpu",
                "kind", "details", k.reset);
    fr_record r;
    char tbuf[48];
    while (fr_cli_next(t, &r) == FR_READ_OK) {
        if (o->tids.n && !tid_listed(&o->tids, r.tid))
            continue;
        if (o->fn_s && r.kind != FR_REC_BLOCK && !function_selected(f, t, &r))
            continue;
        int64_t rel = fr_cli_rel(t, r.tsc);
        if (rel < f->from || rel > f->to)
            continue;
        if (r.kind == FR_REC_BLOCK && r.tid == 0 && !o->meta)
            continue; /* the metadata block's header says nothing without its records */
        if (r.kind != FR_REC_BLOCK || !o->fn_s)
            matched++;
        fr_cli_format_ticks(tbuf, sizeof tbuf, rel, t->ticks_per_second, 6, 3);
        if (json) {
            print_json_record(out, t, &r, tbuf);
            continue;
        }
        fprintf(out, "%-10" PRIu64 " %14s %8d %4u %s%-9s%s ", r.offset, tbuf, r.tid, r.cpu,
                kind_color(&k, &r), kind_name(&r), k.reset);
        print_details(out, t, &r);
        putc('\n', out);
    }
    return matched;
}

/* ---------------------------------------------------------------- report */

/* An empty result is more often a typo than an answer: say so, exit 1. */
static int report_no_match(const struct dump_opts *o)
{
    char tid_list[FR_CLI_TIDS_LIST_MAX];
    fr_cli_tids_list(&o->tids, tid_list);
    fr_cli_input_error("dump", "warning: no record matched%s%s%s%s%s%s%s%s",
                       o->tids.n ? " --tid " : "", tid_list, o->fn_s ? " --function " : "",
                       o->fn_s ? o->fn_s : "", o->from_s ? " --from " : "",
                       o->from_s ? o->from_s : "", o->to_s ? " --to " : "", o->to_s ? o->to_s : "");
    return FR_EXIT_BAD_INPUT;
}

/* ---------------------------------------------------------------- the command */

int cmd_dump(int argc, char **argv)
{
    const char *cmd = "dump";
    struct dump_opts o = {.format = "text", .color = FR_COLOR_AUTO};
    fr_cli_trace t;
    int rc = fr_cli_start_trace(&t, &fr_cmd_dump, argc, argv, &o, &o.binary);
    if (rc)
        return rc == FR_CLI_HELP_SHOWN ? FR_EXIT_OK : rc;
    t.return_meta = o.meta;
    struct dump_filter f;
    if ((rc = fr_cli_check_color_format(cmd, o.color, o.format)) != 0 ||
        (rc = check_filter(&f, &o, &t)) != 0) {
        fr_cli_close(&t);
        return rc;
    }
    FILE *out = fr_cli_open_output(cmd, o.output);
    if (!out) {
        fr_cli_close(&t);
        return FR_EXIT_BAD_INPUT;
    }
    uint64_t matched = print_records(out, &t, &f);
    free(f.name_match);
    rc = fr_cli_close_output(cmd, o.output, out);
    if (rc) {
        fr_cli_close(&t);
        return rc;
    }
    rc = fr_cli_close(&t);
    bool filtered = o.tids.n || o.fn_s || o.from_s || o.to_s;
    if (!rc && filtered && !matched)
        return report_no_match(&o);
    return rc;
}
