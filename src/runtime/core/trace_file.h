/*
 * trace_file.h - creating a trace file the way every trace file is created (trace_file.c).
 */
#ifndef FLIGHTREC_TRACE_FILE_H
#define FLIGHTREC_TRACE_FILE_H

#include <stddef.h>
#include "core/visibility.h"

/* Creates the trace file `path` for writing the way every trace file is created: a FIFO
 * or character device is opened in place (*in_place = 1); anything else gets a new file
 * O_CREAT|O_EXCL|O_NOFOLLOW under an unguessable temporary name next to it (`tmp`, `cap`
 * bytes) with file_mode. The descriptor or -errno. */
FR_HIDDEN int fr_create_trace_file(const char *path, char *tmp, size_t cap, int *in_place);
#endif
