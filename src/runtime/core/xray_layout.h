/*
 * xray_layout.h - the trace file in compiler-rt's FDR layout, for the XRay compatibility
 * mode (xray-fdr): what llvm-xray shows of it is what it shows of compiler-rt's log of the
 * same run, while flightrec's metadata stays in the file for `flightrec` (docs/FORMAT.md,
 * "Hidden metadata block"; docs/XRAY_COMPAT.md).
 */
#ifndef FLIGHTREC_XRAY_LAYOUT_H
#define FLIGHTREC_XRAY_LAYOUT_H

#include "core/metadata.h"
#include "core/session.h"
#include "core/trace_out.h"

/* Whether the session's files are written in this layout: fr_xray_layout_set and
 * fr_xray_layout_on, session.h. */

/* The whole file through `o`: the header; the hidden metadata block (flightrec's
 * metadata records carried 15 bytes at a time in NewCPUId records of a thread-0 block,
 * which llvm-xray reads without showing a record); then one block per used buffer, oldest
 * first per thread, as compiler-rt writes one per buffer. `figures`: as for the metadata
 * block (NULL: the pool's). Returns 0 or an errno value (also in o->error). */
FR_HIDDEN int fr_xray_layout_write(struct fr_out *o, const struct fr_meta_figures_source *figures);

#endif
