/* libcall_unsupported.c - libcalls.h on a CPU whose port has no library-call stubs (its
 * port_defs.h defines no FR_ARCH_JUMP_SLOT_RELOC; x86-64 and aarch64 have them): the option parser
 * refuses libcalls=1 there (core/options.c), so nothing is ever hooked, and unwinding
 * closes the shadow stack's frames alone. On a port with stubs this file is empty. */
#include "functrace/libcalls.h"
#include "functrace/shadow_stack.h"
#include "arch/port.h"

#ifndef FR_ARCH_JUMP_SLOT_RELOC

void fr_libcalls_install(void) {}

int fr_libcalls_on(void) { return 0; }

void fr_libcalls_emit(fr_meta_writer *w) { (void)w; }

void fr_frames_unwound_below(uint64_t live_sp, int xray_only, int libcall_at_live)
{
    (void)libcall_at_live;
    fr_shadow_unwound_below(live_sp, xray_only);
}

uint32_t fr_libcall_open_frames(uint64_t *slot, uint32_t *id, uint32_t max)
{
    (void)slot, (void)id, (void)max;
    return 0;
}

void fr_libcall_unhook_returns(void) {}

void fr_libcall_rehook_returns(void) {}

#endif
