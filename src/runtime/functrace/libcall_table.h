/* libcall_table.h - the hooked GOT entries (libcall_got.c fills, libcall_stack.c reads):
 * slot i is stub i of arch/<cpu>/libcall_<cpu>.S. Written before the GOT entry is
 * pointed at the stub, never changed after. Internal to libflightrec. */
#ifndef FLIGHTREC_LIBCALL_TABLE_H
#define FLIGHTREC_LIBCALL_TABLE_H

#include <stdint.h>
#include "functrace/libcalls.h"

struct fr_libcall_slot {
    uintptr_t target;   /* the library function */
    uint32_t  id;       /* FR_LIBCALL_FIRST_ID + index of its name */
};

extern FR_HIDDEN struct fr_libcall_slot fr_libcall_slots[FR_LIBCALL_SLOTS];

#endif
