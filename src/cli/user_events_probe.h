/*
 * user_events_probe.h - whether a program could register Linux user_events on this
 * machine, and when not, why: for `flightrec doctor`.
 */
#ifndef FLIGHTREC_USER_EVENTS_PROBE_H
#define FLIGHTREC_USER_EVENTS_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/* Returns true when user_events_data opens for writing (what the runtime's sink does at
 * a provider's registration); `detail` then names the file. Otherwise `detail` says why
 * not, from what the machine shows: the file not writable by this user, tracefs not
 * mounted, a kernel built without CONFIG_USER_EVENTS (its config file says so) or older
 * than 6.4. */
bool fr_user_events_probe(char *detail, size_t n);

#endif
