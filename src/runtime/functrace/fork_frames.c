/* fork_frames.c - a forked child's trace begins with the calls open at the fork.
 *
 * The child's pool starts empty, but the forking thread's calls go on in the child: the
 * traced function that called fork, its callers up to main, and (libcalls=1) fork itself
 * return there. Their entries are in the parent's trace only, so without help the child's
 * trace has their exits alone (unmatched, and everything the child calls sits at the top
 * level). So the child records, when it starts, an entry for each open frame, outermost
 * first: the shadow stack's (XRay and -finstrument-functions frames) merged in stack order
 * with the open library calls. These are the child's records of calls that continue in
 * it; the parent's trace is untouched.
 *
 * Stack order: the stack grows down, so an outer frame's address is higher. A shadow
 * entry's sp is its return-address slot (XRay) or the caller's stack pointer at the hook
 * (gcc), a library call's its return-address slot: both lie above the slots of everything
 * the frame calls. Each list is in order already; the merge keeps both orders (frames on
 * a signal handler's alternate stack stay after those they interrupted, in each list).
 * An equal address puts the shadow frame first, as unwinding does (libcall_stack.c).
 *
 * XRay frames are entered through the recorder only when it is the sleds' handler: a
 * handler the program installed keeps its own state across fork and gets nothing new.
 * Frames beyond the shadow stack's capacity (FR_SHADOW_CAP) are not stored: their exits
 * in the child stay unmatched. Called in the child with signals blocked (core/fork.c's
 * child hook, set by functrace_runtime.c). */
#define _GNU_SOURCE
#include "functrace/fork_frames.h"
#include "core/recorder.h"
#include "functrace/libcalls.h"
#include "functrace/shadow_stack.h"
#include "functrace/sled_patch.h"

uint32_t fr_fork_enter_open_frames(void)
{
    const struct fr_shadow *s = &fr_shadow;
    uint32_t ns = s->depth < FR_SHADOW_CAP ? s->depth : FR_SHADOW_CAP;
    uint64_t lslot[FR_LIBCALL_DEPTH];
    uint32_t lid[FR_LIBCALL_DEPTH];
    uint32_t nl = fr_libcall_open_frames(lslot, lid, FR_LIBCALL_DEPTH);
    void (*h)(int32_t, int) = __atomic_load_n(&fr_sled_handlers.function, __ATOMIC_ACQUIRE);
    int xray_recorded = h == (void (*)(int32_t, int))fr_record_function;
    uint32_t i = 0, j = 0, n = 0;
    while (i < ns || j < nl) {
        if (j == nl || (i < ns && s->e[i].sp >= lslot[j])) {
            const struct fr_shadow_entry *e = &s->e[i++];
            if ((e->flags & FR_SHADOW_FINSTRUMENT) || xray_recorded) {
                fr_record_function(e->id, FR_FN_ENTER);
                n++;
            }
        } else {
            fr_record_function(lid[j++], FR_FN_ENTER);
            n++;
        }
    }
    return n;
}
