/*
 * event_write.c - the hot path of an enabled event: completes the iovec array the call
 * site built on its stack and hands it to each sink that wants the event. No lock, no
 * allocation; the only system call is user_events' writev, made only while a kernel
 * tracer listens.
 *
 * iovec slots as the macro leaves them: [0] [1] [2] scratch, [3] metadata extension,
 * [4..] values. Each sink gets the fewest pieces that spell its bytes:
 *   flight recorder, site with an id: [2] activity extension if any, values (the
 *                                  site's name, header, metadata are in the file once)
 *   without an id (table full):
 *   flight recorder, no activity:  [3] = the site's prefix (tracepoint name NUL, header,
 *                                  metadata, concatenated at registration), values
 *   flight recorder, activity:     [0] name, [1] header, [2] activity extension, [3] meta
 *   user_events:                   [.] write index, header, [activity], metadata, values
 *                                  (without an activity, no empty iovec: starts at [1])
 * The usual case (the flight recorder alone, a site with an id, no span) goes straight
 * to the compact record path; the recorder stores the values with inline stores
 * (thread_writer.c put_bytes): no library call for fixed-size fields or short strings.
 */
#include <string.h>

#include "events/events_internal.h"

/* Every case: activity extensions, the full forms, user_events (`enabled` read once by
 * the caller). */
static __attribute__((noinline)) void write_any(fr_event_site *site, uint32_t enabled,
                                                const uint8_t *activity,
                                                const uint8_t *related, struct iovec *iov,
                                                int iovcnt)
{
    struct fr_tracepoint *tp = site->tracepoint;
    if (!tp || iovcnt < 4)
        return;

    /* Events inside a span belong to it (span start/stop name their ids themselves). */
    if (!activity && fr_current_activity.set && site->opcode != FR_EH_OPCODE_ACTIVITY_START &&
        site->opcode != FR_EH_OPCODE_ACTIVITY_STOP)
        activity = fr_current_activity.id;

    uint8_t ext[4 + 32];
    if (activity) {
        size_t len = related ? 32 : 16;
        ext[0] = (uint8_t)len;
        ext[1] = 0;
        ext[2] = FR_EH_EXT_ACTIVITY_ID;
        ext[3] = FR_EH_EXT_CHAIN >> 8;          /* the metadata extension follows */
        memcpy(ext + 4, activity, 16);
        if (related)
            memcpy(ext + 20, related, 16);
        iov[2].iov_base = ext;
        iov[2].iov_len = 4 + len;
    }

    if (enabled & FR_SITE_RECORDER) {
        uint32_t site_id = __atomic_load_n(&fr_events_compact, __ATOMIC_RELAXED)
                               ? site->recorder_site_id : 0;
        if (site_id) {
            /* compact: the site's bytes are in the file once (event_site_table.c) */
            fr_events_recorder_write_compact(site_id, activity ? iov[2].iov_base : NULL,
                                             activity ? iov[2].iov_len : 0, iov + 4,
                                             iovcnt - 4);
        } else if (!activity && site->recorder_prefix) {
            struct iovec meta = iov[3];
            iov[3].iov_base = (void *)site->recorder_prefix;
            iov[3].iov_len = site->recorder_prefix_size;
            fr_events_recorder_write(iov + 3, iovcnt - 3);
            iov[3] = meta;
        } else {
            iov[0].iov_base = tp->name;
            iov[0].iov_len = tp->name_len + 1;
            iov[1].iov_base = site->header;
            iov[1].iov_len = FR_EH_HEADER_SIZE;
            if (activity) {
                fr_events_recorder_write(iov, iovcnt);
            } else {
                iov[2] = iov[1];
                iov[1] = iov[0];
                fr_events_recorder_write(iov + 1, iovcnt - 1);
            }
        }
    }

    if (enabled & FR_SITE_USER_EVENTS) {
        int first = activity ? 0 : 1;
        iov[first + 1].iov_base = site->header;
        iov[first + 1].iov_len = FR_EH_HEADER_SIZE;
        fr_ue_write(tp, iov + first, iovcnt - first);
    }
}

void fr__event_write(fr_event_site *site, const uint8_t *activity, const uint8_t *related,
                     struct iovec *iov, int iovcnt)
{
    /* Acquire: pairs with the release that set the bit after the site was completed. */
    uint32_t enabled = __atomic_load_n(&site->enabled, __ATOMIC_ACQUIRE);
    /* The common case, the flight recorder alone writing a compact event of a site with
     * an id, outside any span: straight to the record path (a tail call, no frame). */
    if (__builtin_expect(enabled == FR_SITE_RECORDER && !activity && !fr_current_activity.set &&
                             iovcnt >= 4 && site->tracepoint &&
                             __atomic_load_n(&fr_events_compact, __ATOMIC_RELAXED) &&
                             site->recorder_site_id, 1)) {
        fr_events_recorder_write_compact(site->recorder_site_id, NULL, 0, iov + 4, iovcnt - 4);
        return;
    }
    write_any(site, enabled, activity, related, iov, iovcnt);
}
