/*
 * snapshot.h - writing the current history to a new file while threads keep recording
 * (fr_snapshot in flightrec.h, snapshot_signal=).
 */
#ifndef FLIGHTREC_SNAPSHOT_H
#define FLIGHTREC_SNAPSHOT_H

#include "core/visibility.h"

/* From the snapshot_signal handler: fr_snapshot(NULL), async-signal-safe. */
FR_HIDDEN void fr_snapshot_from_signal(int sig);
/* A termination signal the program handles itself: the trace so far to the trace's own
 * path (recording goes on; a later exit writes the whole trace over it). */
FR_HIDDEN void fr_snapshot_termination(int sig);

#endif
