/*
 * handler_offsets.h - byte offsets of struct fr_sled_handlers' fields (four pointers), as
 * every port's trampolines read them; the same on each 64-bit port, so written once here
 * and included by each arch/<cpu>/port_defs.h. Plain #defines, for assembly too;
 * functrace/sled_patch.c checks them against the struct.
 */
#ifndef FLIGHTREC_ARCH_HANDLER_OFFSETS_H
#define FLIGHTREC_ARCH_HANDLER_OFFSETS_H

#define FR_ARCH_HANDLER_OFF_FUNCTION 0
#define FR_ARCH_HANDLER_OFF_ARG1     8
#define FR_ARCH_HANDLER_OFF_CUSTOM   16
#define FR_ARCH_HANDLER_OFF_TYPED    24

#endif
