/*
 * output_path.h - the trace file's name from the output= pattern (output_path.c).
 */
#ifndef FLIGHTREC_OUTPUT_PATH_H
#define FLIGHTREC_OUTPUT_PATH_H

#include <stddef.h>
#include <stdint.h>
#include "core/visibility.h"

/* Expands `pattern` ("%p" -> pid, "%%" -> "%") into out; when `force_pid` and the
 * pattern has no %p, appends ".PID" (fork children). Returns 0 or -1 (too long).
 * Async-signal-safe (no stdio, no allocation). */
FR_HIDDEN int fr_expand_output(char *out, size_t cap, const char *pattern, int32_t pid,
                               int force_pid);

/* Whether this process must add ".PID" to an output pattern without %p, so as not to
 * overwrite the trace of another process of the same run (children that exec a traced
 * program inherit output=, and the pid of a fork child's first image is all that
 * fork.c can name). The run's first such process sets FLIGHTREC_RUN_PID=its pid in the
 * environment, which its children inherit; a process that finds another pid there
 * returns 1 and says on stderr which file it writes instead. 0 for a pattern with %p. */
FR_HIDDEN int fr_output_shared_by_run(const char *pattern, int32_t pid);

/* A relative pattern made absolute from the working directory ('%' in it doubled, so
 * that it expands to itself): "" and absolute patterns are left alone. 0, or -1 after a
 * message naming the option when the result would not fit in cap (the working directory
 * unknown, a deleted one: left relative, 0). */
FR_HIDDEN int fr_pattern_absolute(char *pattern, size_t cap, const char *option);

#endif
