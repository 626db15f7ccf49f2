/*
 * session.c - the current recorder session's shared state (session.h).
 */
#include "core/session.h"
#include "core/recorder.h"

struct fr_session fr_session = { .registry_lock = PTHREAD_MUTEX_INITIALIZER };

void fr_xray_layout_set(int on)
{
    __atomic_store_n(&fr_session.xray_layout, on, __ATOMIC_RELEASE);
}

int fr_xray_layout_on(void)
{
    return __atomic_load_n(&fr_session.xray_layout, __ATOMIC_ACQUIRE);
}

const struct fr_options *fr_current_options(void)
{
    return &fr_session.opts;
}
