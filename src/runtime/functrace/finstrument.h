/*
 * finstrument.h - gcc's -finstrument-functions front end (finstrument.c).
 *
 * __cyg_profile_func_enter/exit feed the same recorder as the sleds. A function gets its
 * id the first time it is seen while recording: FR_FINSTRUMENT_FIRST_ID + its slot in a
 * fixed lock-free address table (one compare-and-swap on first sight, plain loads after).
 * These ids lie above every sled id (FR_SLED_MAX_FUNCTION_ID), so both front ends can
 * trace one program. The trace carries id -> object, address, name (FR_TE_FUNCTION), so
 * it can be read without the binary. Internal to libflightrec.
 */
#ifndef FLIGHTREC_FINSTRUMENT_H
#define FLIGHTREC_FINSTRUMENT_H

#include <stdint.h>
#include "core/recorder.h"

#define FR_FINSTRUMENT_TABLE_BITS 17   /* 131072 distinct functions */
#define FR_FINSTRUMENT_FIRST_ID   0x0F000000u

/* The record-time filter (func_filter.h) changed: forget the cached decisions (all, or
 * only those made for functions the filter had not seen in a symbol table). */
void fr_finstrument_filter_changed(int guessed_only);
/* Resolves the names of the functions seen so far (reads symbol tables: not
 * async-signal-safe). Called before finalize; the flush then only copies. */
void fr_finstrument_resolve_names(void);
/* Marks in USED[object index] the objects that hold functions seen so far. */
void fr_finstrument_mark_objects(uint8_t *used, uint32_t nobjects);
/* Emits one FR_TE_FUNCTION per function seen (async-signal-safe). */
void fr_finstrument_emit(fr_meta_writer *w);

#endif
