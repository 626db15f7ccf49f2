/*
 * event_sink_recorder.c - the flight recorder sink: while the recorder is initialized,
 * the events selected by the `events=` option are written as compact entries of an
 * FR_TE_EVENT_RUN record (site id, time delta, values; the site's name, header and
 * metadata go once into the metadata block: event_site_table.c), or, for a site without
 * an id, as FR_TE_EVENT records whose payload is the tracepoint name NUL-terminated and
 * then the very EventHeader bytes user_events would carry (fr_format.h, docs/FORMAT.md).
 *
 * The lifecycle hooks switch the FR_SITE_RECORDER bit of every registered call site:
 * on after init, per the option; off before finalize. Providers registered while the
 * recorder runs get the bit at registration.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "events/events_internal.h"
#include "core/options.h"

static pthread_mutex_t filter_lock = PTHREAD_MUTEX_INITIALIZER;
int fr_events_compact;   /* see events_internal.h */
static fr_event_filter *filter;   /* NULL while the recorder is not running */

bool fr_events_recorder_wants(const fr_event_site *site)
{
    pthread_mutex_lock(&filter_lock);
    bool on = filter && fr_event_filter_match(filter, site->provider->name, site->level,
                                              site->keyword);
    pthread_mutex_unlock(&filter_lock);
    return on;
}

void fr_events_recorder_enable(fr_event_site *site)
{
    if (!fr_events_recorder_wants(site))
        return;
    /* A backing file must hold the site before the site's first compact event (docs/
     * BACKING.md): added here, before the bit. When the file has no room left, this
     * session's events are written in full from now on (set before the bit: an event
     * that sees the bit sees it). */
    if (site->recorder_site_id && __atomic_load_n(&fr_events_compact, __ATOMIC_RELAXED) &&
        fr_event_site_to_backing(site->recorder_site_id) < 0) {
        __atomic_store_n(&fr_events_compact, 0, __ATOMIC_RELAXED);
        static int said;
        if (!said++)
            fprintf(stderr, "flightrec: the backing file has no room for more event call "
                    "sites: structured events are recorded in full (larger records) for "
                    "the rest of this session\n");
    }
    __atomic_fetch_or(&site->enabled, FR_SITE_RECORDER, __ATOMIC_RELEASE);
}

static void apply_to_site(fr_event_site *site, void *ctx)
{
    (void)ctx;
    if (fr_events_recorder_wants(site))
        fr_events_recorder_enable(site);
    else
        __atomic_fetch_and(&site->enabled, ~FR_SITE_RECORDER, __ATOMIC_RELAXED);
}

static void set_filter(fr_event_filter *f)
{
    pthread_mutex_lock(&filter_lock);
    fr_event_filter *old = filter;
    filter = f;
    pthread_mutex_unlock(&filter_lock);
    fr_event_filter_free(old);
}

static void after_init(const struct fr_options *opts)
{
    /* Compact events need each site's bytes in the file before (for a reader) its events:
     * the metadata block of a file written at the end; a streamed file's writer puts them
     * in before the first block that uses them (stream_writer.c); a backing file gets
     * them as the sites are enabled (fr_events_recorder_enable). Set before any site gets
     * its recorder bit (release). */
    __atomic_store_n(&fr_events_compact, opts != NULL, __ATOMIC_RELAXED);
    /* An empty value means the option was not given: every event. */
    set_filter(fr_event_filter_parse(opts && opts->events[0] ? opts->events : NULL));
    fr_events_for_each_site(apply_to_site, NULL);
}

static void before_finalize(void)
{
    set_filter(NULL);
    fr_events_for_each_site(apply_to_site, NULL);
}

__attribute__((constructor)) static void register_recorder_hooks(void)
{
    static const fr_lifecycle_hooks hooks = {after_init, before_finalize};
    fr_lifecycle_register_hooks(&hooks);
}

void fr_events_recorder_write(const struct iovec *iov, int iovcnt)
{
    fr_record_ours_iov(FR_TE_EVENT, iov, iovcnt);
}

void fr_events_recorder_write_compact(uint32_t site_id, const void *ext, size_t ext_len,
                                      const struct iovec *values, int nvalues)
{
    fr_event_site_fired(site_id);   /* before the record: a flush that sees it sees this */
    fr_record_event_entry(site_id, ext, ext_len, values, nvalues);
}
