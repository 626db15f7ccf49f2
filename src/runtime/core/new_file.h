/*
 * new_file.h - creating a file of ours (a trace, a backing file) so that it is never an
 * existing file or a link someone planted (docs/THREAT_MODEL.md) (new_file.c).
 */
#ifndef FLIGHTREC_NEW_FILE_H
#define FLIGHTREC_NEW_FILE_H

#include "core/visibility.h"

/* Opens a new file at exactly `path` (`access` | O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC,
 * `mode`), again after EINTR: never an existing file or a planted link. The descriptor
 * or -errno (-EEXIST when the name is taken). Async-signal-safe. */
FR_HIDDEN int fr_open_new_file(const char *path, int access, unsigned mode);

#endif
