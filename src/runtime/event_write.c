/*
 * event_write.c - the hot path of an enabled event: completes the iovec array the call
 * site built on its stack (header, activity extension, the sink's first piece) and hands
 * it to each sink that wants the event. No lock, no allocation; the only system call is
 * user_events' writev, made only while a kernel tracer listens.
 *
 * iovec slots as the macro leaves them: [0] sink prefix, [1] header, [2] activity
 * extension, [3] metadata extension, [4..] values. Without an activity the header moves
 * into slot 2 and the event starts at slot 1, so no empty iovec is ever passed on.
 */
#include <string.h>

#include "events_internal.h"

void fr__event_write(fr_event_site *site, const uint8_t *activity, const uint8_t *related,
                     struct iovec *iov, int iovcnt)
{
    uint32_t enabled = __atomic_load_n(&site->enabled, __ATOMIC_RELAXED);
    struct fr_tracepoint *tp = site->tracepoint;
    if (!tp || iovcnt < 4)
        return;

    if (!activity && site->opcode != FR_EH_OPCODE_ACTIVITY_START &&
        site->opcode != FR_EH_OPCODE_ACTIVITY_STOP)
        activity = fr_activity_current_ref();   /* events inside a span belong to it */

    uint8_t ext[4 + 32];
    int first;
    if (activity) {
        size_t len = related ? 32 : 16;
        ext[0] = (uint8_t)len;
        ext[1] = 0;
        ext[2] = FR_EH_EXT_ACTIVITY_ID;
        ext[3] = FR_EH_EXT_CHAIN >> 8;          /* the metadata extension follows */
        memcpy(ext + 4, activity, 16);
        if (related)
            memcpy(ext + 20, related, 16);
        iov[1].iov_base = site->header;
        iov[1].iov_len = FR_EH_HEADER_SIZE;
        iov[2].iov_base = ext;
        iov[2].iov_len = 4 + len;
        first = 0;
    } else {
        iov[2].iov_base = site->header;
        iov[2].iov_len = FR_EH_HEADER_SIZE;
        first = 1;
    }

    if (enabled & FR_SITE_RECORDER)
        fr_events_recorder_write(tp, iov + first, iovcnt - first);
    if (enabled & FR_SITE_USER_EVENTS)
        fr_ue_write(tp, iov + first, iovcnt - first);
}
