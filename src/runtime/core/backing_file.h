/*
 * backing_file.h - the pool in a file (option backing=PATH): created safely, mapped
 * MAP_SHARED, described by a header (src/common/fr_backing.h) so that `flightrec
 * recover` can turn it into a trace after the process died without writing one.
 * docs/BACKING.md says what the file holds and when it is removed. The mapping, which is
 * all the pool knows of the file: backing_map.h (backing_map.c); what the file holds
 * besides the pool, below: backing_meta.c.
 */
#ifndef FLIGHTREC_BACKING_FILE_H
#define FLIGHTREC_BACKING_FILE_H

#include <stdint.h>
#include "core/backing_map.h"   /* the file and its mapping */
#include "core/visibility.h"

/* Fills the header from the pool, clock and process facts (after fr_process_info_read). */
FR_HIDDEN void fr_backing_fill_header(uint32_t session);
/* (Re)writes the metadata block's fixed records (clock, process, sources: function
 * tracing's objects and names) after the pool: at init, and when a source's tables grow
 * (a lifecycle hook registered after init, a dlopen). */
FR_HIDDEN void fr_backing_write_meta(void);
/* fork child: N records made at its start (the entries of the calls open at the fork). */
FR_HIDDEN void fr_backing_set_fork_entries(uint32_t n);
/* Structured events' call sites (docs/BACKING.md, "Event sites"): a compact event names
 * its site by id, so the site's bytes must be in the file before its first event. Under
 * the event registry's lock (one caller at a time), before the site is enabled for the
 * recorder: appends FR_TE_EVENT_SITE(id, bytes) to the file's sites region. 0 appended,
 * 1 no backing file, -1 no room left (the caller then records events in full). */
FR_HIDDEN int fr_backing_add_site(uint32_t id, const void *bytes, uint32_t size);

#endif
