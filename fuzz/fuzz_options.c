/*
 * fuzz_options.c - libFuzzer target for what the runtime reads from its environment
 * inside other people's processes (setuid ones too): FLIGHTREC_OPTIONS' parser
 * (fr_options_parse, its messages included), the output= pattern's expansion
 * (fr_expand_output, async-signal-safe, into buffers of every size), snapshot_signal='s
 * names and the events= selection's syntax. Must never crash, read or write out of
 * bounds, or leave an option outside its documented range: the buffer size a multiple
 * of 8 from 1 KiB to 1 GiB, 1 to FR_MAX_BUFFERS (4,194,304) buffers, every path terminated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "core/output_path.h"
#include "events/event_spec.h"
#include "fr_format.h"

static void check(int cond)
{
    if (!cond)
        abort();
}

static void check_terminated(const char *s, size_t cap)
{
    check(memchr(s, 0, cap) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the text, NUL-terminated as getenv gives it */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;

    struct fr_options o;
    fr_options_defaults(&o);
    /* messages on (they are built in a fixed buffer) for half of the inputs */
    fr_options_parse(&o, text, size && (data[0] & 1) ? "FLIGHTREC_OPTIONS" : NULL);
    check(o.buffer_size % 8 == 0 && o.buffer_size >= 1024 && o.buffer_size <= (1u << 30));
    check(o.buffers >= 1 && o.buffers <= FR_MAX_BUFFERS);
    check(o.policy == FR_POLICY_OVERWRITE || o.policy == FR_POLICY_DISCARD);
    check_terminated(o.output, sizeof o.output);
    check_terminated(o.patch, sizeof o.patch);
    check_terminated(o.snapshot_output, sizeof o.snapshot_output);
    check_terminated(o.events, sizeof o.events);
    check_terminated(o.backing, sizeof o.backing);
    check(fr_event_spec_valid(o.events, strlen(o.events)) || !o.events[0]);

    /* the output pattern into buffers of each size up to past what it needs: the result
     * is whole and terminated, or refused */
    const char *patterns[] = {o.output, o.snapshot_output, o.backing, text};
    for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++) {
        size_t need = 0;
        for (size_t cap = 1; cap <= 64; cap++) {
            char *out = malloc(cap);
            if (!out)
                break;
            int32_t pid = size > 4 ? (int32_t)(data[1] | data[2] << 8 | data[3] << 16) : 12345;
            if (fr_expand_output(out, cap, patterns[p], pid, (int)(cap & 1)) == 0) {
                check_terminated(out, cap);
                need = need ? need : cap;
            }
            free(out);
        }
        (void)need;
    }
    fr_options_signal(text, size);
    fr_event_spec_valid(text, size);
    free(text);
    return 0;
}
