/*
 * sled_islands.h - what a patched sled of an object calls: the trampolines, or an island
 * of far jumps near the object when they are out of a sled call's reach (sled_islands.c;
 * the port gives the reach and the bytes of a slot, arch/port.h). Internal to
 * libflightrec.
 */
#ifndef FLIGHTREC_SLED_ISLANDS_H
#define FLIGHTREC_SLED_ISLANDS_H

#include "arch/port.h"

struct fr_instr_object;

/* Call targets reachable from every sled of O: the trampolines themselves, or O's
 * island (mapped the first time it is needed, then kept). 0 on success, -1 when no
 * island could be mapped within reach. Under the patch lock; not hot. */
int fr_sled_call_targets(const struct fr_instr_object *o, struct fr_sled_targets *t);

#endif
