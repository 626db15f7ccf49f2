/*
 * backing_file.h - the pool in a file (option backing=PATH): created safely, mapped
 * MAP_SHARED, described by a header (src/common/fr_backing.h) so that `flightrec
 * recover` can turn it into a trace after the process died without writing one.
 * docs/BACKING.md says what the file holds and when it is removed.
 */
#ifndef FLIGHTREC_BACKING_FILE_H
#define FLIGHTREC_BACKING_FILE_H

#include <stddef.h>
#include <stdint.h>
#include "core/options.h"
#include "core/visibility.h"
#include "fr_backing.h"

/* The file in use ("" when the pool is not backed). */
extern FR_HIDDEN char fr_backing_path[FR_OPTIONS_PATH_MAX];

/* Creates the file for a pool of `pool_size` bytes whose first `data_size` are the
 * buffers' data and [threads_off, +threads_len) the thread slots, both reserved later,
 * as they are first used, by fr_backing_reserve (o->backing with %p expanded to this
 * process's pid; ".PID" appended when `force_pid` and the pattern has no %p) and maps
 * it. `fixed`: the address to map the pool at (a fork child replaces its parent's
 * mapping), or NULL. Returns the pool's address (2 MiB aligned) or MAP_FAILED after
 * saying why on stderr. Async-signal-safe enough for a fork child (no malloc, no stdio). */
FR_HIDDEN void *fr_backing_create(const struct fr_options *o, size_t pool_size, size_t data_size,
                                  size_t threads_off, size_t threads_len, int force_pid,
                                  void *fixed);
/* Reserves the file's space for the pool's bytes [off, off + len) (offsets from the
 * pool's start; 2 MiB steps, each once): called as the pool hands out a buffer or a
 * thread slot for the first time. 0, or -1 after saying
 * once on stderr why the file cannot grow (full file system, the file renamed). Lock-free,
 * async-signal-safe (system calls only). */
FR_HIDDEN int fr_backing_reserve(uint64_t off, uint64_t len);
/* Fills the header from the pool, clock and process facts (after fr_process_info_read). */
FR_HIDDEN void fr_backing_fill_header(uint32_t session);
/* (Re)writes the metadata block's fixed records (clock, process, sources: function
 * tracing's objects and names) after the pool: at init, and when a source's tables grow
 * (a lifecycle hook registered after init, a dlopen). */
FR_HIDDEN void fr_backing_write_meta(void);
FR_HIDDEN void fr_backing_set_state(uint32_t state);
/* Structured events' call sites (docs/BACKING.md, "Event sites"): a compact event names
 * its site by id, so the site's bytes must be in the file before its first event. Under
 * the event registry's lock (one caller at a time), before the site is enabled for the
 * recorder: appends FR_TE_EVENT_SITE(id, bytes) to the file's sites region. 0 appended,
 * 1 no backing file, -1 no room left (the caller then records events in full). */
FR_HIDDEN int fr_backing_add_site(uint32_t id, const void *bytes, uint32_t size);
/* Which set of sites the backing file holds: a new number for each file made at init
 * (0: no backing file); a fork child's file, which starts with a copy of its parent's
 * sites, keeps the parent's number. A site added under this number need not be again. */
FR_HIDDEN uint32_t fr_backing_generation(void);
/* The trace was written: the file has served its purpose and is removed (only if the
 * name still leads to the file we created). Async-signal-safe. */
FR_HIDDEN void fr_backing_remove(void);
/* Unmaps the whole file mapping (header and pool). */
FR_HIDDEN void fr_backing_unmap(void);
/* fork child: the mapping is still the parent's file (MAP_SHARED is inherited). When
 * `want_file` (the child goes on recording), maps a file of the child's own (backing= with the child's pid, ".PID" appended when the
 * pattern has no %p) at the same address; if that fails, zero anonymous memory there
 * (the child records without a backing file, said on stderr); else zero anonymous memory
 * quietly. 0, or -1 (unbacked). */
FR_HIDDEN int fr_backing_fork_child(int want_file);

#endif
