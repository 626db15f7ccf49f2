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
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "eventheader_decode.h"
#include "text_escape.h"

static const char *const usage_text =
    "usage: flightrec dump FILE [options]\n"
    "Prints one line per record: byte offset, time (us since the trace start), thread,\n"
    "CPU, kind and details (function id and name, argument, event payload).\n"
    "FILE '-' reads the trace from standard input.\n"
    "\n"
    "options:\n"
    "  --tid TID[,TID...]   only records of these threads (repeatable)\n"
    "  --function ID|NAME   only function records of this function (and block records)\n"
    "  --from TIME          only records at or after TIME since the trace start\n"
    "  --to TIME            only records before or at TIME since the trace start\n"
    "                       TIME: a number with unit ns, us (default), ms or s\n"
    "  --meta               also print flightrec's metadata records (FR_TE_* events)\n"
    "  --binary BIN         take symbols from BIN (default: the executable in the trace)\n"
    "  --demangle=MODE      C++ names: full (default), simple (no template arguments nor\n"
    "                       parameter lists: ns::Box::get) or no (mangled, as linked)\n"
    "  -f, --format F       text (default) or json (JSON Lines: one object per record)\n"
    "  --json               the same as --format json\n"
    "  -o, --output FILE    write to FILE instead of standard output\n"
    "  --color[=WHEN]       colour the kind column: auto (default: on a terminal),\n"
    "                       always or never\n"
    "  -h, --help           this text\n"
    "When --tid, --function, --from or --to select no record at all, a warning says so\n"
    "and the exit status is 1.\n";

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

int cmd_dump(int argc, char **argv)
{
    const char *cmd = "dump", *path = NULL, *binary = NULL, *tid_s = NULL, *fn_s = NULL;
    const char *from_s = NULL, *to_s = NULL, *format = "text", *output = NULL, *color_s = NULL;
    const char *demangle = NULL;
    bool meta = false;
    int color = FR_COLOR_AUTO;
    fr_cli_tids tids = {0};   /* --tid: only these threads' records (repeatable, 12,34) */
    for (int i = 1; i < argc; i++) {
        int m;
        if (fr_cli_is_help(argv[i])) {
            fputs(usage_text, stdout);
            return FR_EXIT_OK;
        }
        if ((m = fr_cli_option(cmd, argc, argv, &i, "--tid", &tid_s)) > 0) {
            if (fr_cli_parse_tids(cmd, tid_s, &tids))
                return FR_EXIT_USAGE;
        } else if (m < 0) {
            return FR_EXIT_USAGE;
        } else if ((m = fr_cli_option(cmd, argc, argv, &i, "--function", &fn_s)) ||
            (m = fr_cli_option(cmd, argc, argv, &i, "--from", &from_s)) ||
            (m = fr_cli_option(cmd, argc, argv, &i, "--to", &to_s)) ||
            (m = fr_cli_option(cmd, argc, argv, &i, "--binary", &binary)) ||
            (m = fr_cli_option(cmd, argc, argv, &i, "--demangle", &demangle)) ||
            (m = fr_cli_option(cmd, argc, argv, &i, "--format", &format)) ||
            (m = fr_cli_option(cmd, argc, argv, &i, "-f", &format)) ||
            (m = fr_cli_option(cmd, argc, argv, &i, "--output", &output)) ||
            (m = fr_cli_option(cmd, argc, argv, &i, "-o", &output))) {
            if (m < 0)
                return FR_EXIT_USAGE;
        } else if (!strcmp(argv[i], "--meta")) {
            meta = true;
        } else if (!strcmp(argv[i], "--json")) {
            format = "json";
        } else if (!strcmp(argv[i], "--color") || !strncmp(argv[i], "--color=", 8)) {
            color_s = argv[i][7] ? argv[i] + 8 : NULL;
            if (fr_cli_parse_color(cmd, color_s, &color))
                return FR_EXIT_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return fr_cli_usage_error(cmd, "unknown option '%s'", argv[i]);
        } else if (!path) {
            path = argv[i];
        } else {
            return fr_cli_usage_error(cmd, "one trace file only ('%s' is extra)", argv[i]);
        }
    }
    if (!path)
        return fr_cli_usage_error(cmd, "no trace file given");
    if (demangle && fr_cli_parse_demangle(cmd, demangle))
        return FR_EXIT_USAGE;
    bool json = !strcmp(format, "json");
    if (!json && strcmp(format, "text"))
        return fr_cli_usage_error(cmd, "unknown format '%s' (text or json)", format);

    char *end;
    uint32_t fn_id = 0;
    bool fn_by_name = false;
    if (fn_s) {
        unsigned long v = strtoul(fn_s, &end, 10);
        if (*fn_s && !*end && v <= FR_XRAY_MAX_FUNCTION_ID)
            fn_id = (uint32_t)v;
        else
            fn_by_name = true;
    }

    fr_cli_trace t;
    int rc = fr_cli_open(&t, cmd, path, binary);
    if (rc)
        return rc;
    t.return_meta = meta;
    int64_t from = INT64_MIN, to = INT64_MAX;
    const char *bad = from_s && fr_cli_parse_duration(from_s, t.ticks_per_second, &from) ? from_s
                    : to_s && fr_cli_parse_duration(to_s, t.ticks_per_second, &to)       ? to_s
                                                                                         : NULL;
    if (bad) {
        fr_cli_close(&t);
        return fr_cli_usage_error(cmd, "expected a time like 1.5ms, 20us, 100ns or 2s, found '%s'",
                                  bad);
    }

    FILE *out = fr_cli_open_output(cmd, output);
    if (!out) {
        fr_cli_close(&t);
        return FR_EXIT_BAD_INPUT;
    }
    fr_cli_colors k = fr_cli_colors_for(!json && fr_cli_use_color(color, out));

    /* Matching by name: the first time an id is met, compare its name, then remember. */
    uint8_t *name_match = NULL; /* 0 unknown, 1 no, 2 yes; indexed by id, grown on demand */
    size_t name_match_n = 0;
    bool filtered = tid_s || fn_s || from_s || to_s;
    uint64_t matched = 0;   /* records the filters selected (not counting context blocks) */

    if (!json)
        fprintf(out, "%s%-10s %14s %8s %4s %-9s %s%s\n", k.bold, "offset", "time_us", "tid", "cpu",
                "kind", "details", k.reset);
    fr_record r;
    char tbuf[48];
    while (fr_cli_next(&t, &r) == FR_READ_OK) {
        if (tids.n && !tid_listed(&tids, r.tid))
            continue;
        if (fn_s && r.kind != FR_REC_BLOCK) {
            if (!is_function(&r))
                continue;
            if (fn_by_name && r.function_id >= (1u << 20)) {
                /* Ids beyond a sane table (a damaged file): compare without a cache. */
                if (strcmp(fr_cli_name(&t, r.function_id), fn_s))
                    continue;
            } else if (fn_by_name) {
                if (r.function_id >= name_match_n) {
                    size_t n = (size_t)r.function_id * 2 + 16;
                    uint8_t *m = realloc(name_match, n);
                    if (!m)
                        continue;
                    memset(m + name_match_n, 0, n - name_match_n);
                    name_match = m;
                    name_match_n = n;
                }
                if (!name_match[r.function_id])
                    name_match[r.function_id] =
                        strcmp(fr_cli_name(&t, r.function_id), fn_s) ? 1 : 2;
                if (name_match[r.function_id] != 2)
                    continue;
            } else if (r.function_id != fn_id) {
                continue;
            }
        }
        int64_t rel = fr_cli_rel(&t, r.tsc);
        if (rel < from || rel > to)
            continue;
        if (r.kind == FR_REC_BLOCK && r.tid == 0 && !meta)
            continue; /* the metadata block's header says nothing without its records */
        if (r.kind != FR_REC_BLOCK || !fn_s)
            matched++;
        fr_cli_format_ticks(tbuf, sizeof tbuf, rel, t.ticks_per_second, 6, 3);
        if (json) {
            print_json_record(out, &t, &r, tbuf);
            continue;
        }
        fprintf(out, "%-10" PRIu64 " %14s %8d %4u %s%-9s%s ", r.offset, tbuf, r.tid, r.cpu,
                kind_color(&k, &r), kind_name(&r), k.reset);
        print_details(out, &t, &r);
        putc('\n', out);
    }
    free(name_match);
    rc = fr_cli_close_output(cmd, output, out);
    if (rc) {
        fr_cli_close(&t);
        return rc;
    }
    rc = fr_cli_close(&t);
    if (!rc && filtered && !matched) {
        /* An empty result is more often a typo than an answer: say so, exit 1. */
        char tid_list[FR_CLI_TIDS_LIST_MAX];
        fr_cli_tids_list(&tids, tid_list);
        fr_cli_input_error(cmd, "warning: no record matched%s%s%s%s%s%s%s%s", tids.n ? " --tid " : "",
                           tid_list, fn_s ? " --function " : "", fn_s ? fn_s : "",
                           from_s ? " --from " : "", from_s ? from_s : "", to_s ? " --to " : "",
                           to_s ? to_s : "");
        return FR_EXIT_BAD_INPUT;
    }
    return rc;
}
