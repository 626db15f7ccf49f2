/*
 * functrace_runtime.c - ties function tracing to the recorder's lifecycle and metadata.
 *
 * At init: find the instrumentation maps, install the recorder as the sleds' handler
 * (unless the program installed its own through the XRay interface) and patch what the
 * `patch` option says (all by default; none; or a pattern, see sled_patch.h).
 * At finalize: unpatch what init patched, and resolve gcc-instrumented functions' names.
 * At flush: the metadata block gets FR_TE_OBJECT (each object with sleds or with
 * gcc-instrumented functions: index, id range, load bias, path) and FR_TE_FUNCTION (each
 * function: id, object, address, name) events.
 * In a fork child: the entries of the calls open at the fork (fork_frames.h).
 */
#define _GNU_SOURCE
#include "functrace/finstrument.h"
#include "functrace/fork_frames.h"
#include "functrace/func_filter.h"
#include "functrace/libcalls.h"
#include "functrace/instr_map.h"
#include "core/backing_file.h"
#include "core/fork.h"
#include "core/options.h"
#include "core/recorder.h"
#include "functrace/shadow_stack.h"
#include "functrace/sled_patch.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The recorder behind the XRay handler types (the same registers: id, kind[, arg]). */
static void record_arg1(int32_t id, int kind, uint64_t arg)
{
    (void)kind;
    fr_record_function_arg((uint32_t)id, arg);
}

#define RECORD_FUNCTION ((void (*)(int32_t, int))fr_record_function)
#define RECORD_CUSTOM ((void (*)(void *, size_t))fr_record_custom)

void fr_functrace_install_recorder(int force)
{
    struct fr_sled_handlers *h = &fr_sled_handlers;
    if (force) {
        __atomic_store_n(&h->function, RECORD_FUNCTION, __ATOMIC_RELEASE);
        __atomic_store_n(&h->function_arg1, record_arg1, __ATOMIC_RELEASE);
        __atomic_store_n(&h->custom_event, RECORD_CUSTOM, __ATOMIC_RELEASE);
        __atomic_store_n(&h->typed_event, fr_record_typed, __ATOMIC_RELEASE);
        return;
    }
    /* Only where nothing is installed: a handler the program set stays. */
    void (*f)(int32_t, int) = NULL;
    __atomic_compare_exchange_n(&h->function, &f, RECORD_FUNCTION, 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
    void (*a)(int32_t, int, uint64_t) = NULL;
    if (f == NULL)   /* the recorder took the plain handler: take arg1 too */
        __atomic_compare_exchange_n(&h->function_arg1, &a, record_arg1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE);
    void (*c)(void *, size_t) = NULL;
    __atomic_compare_exchange_n(&h->custom_event, &c, RECORD_CUSTOM, 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
    void (*t)(uint16_t, const void *, size_t) = NULL;
    __atomic_compare_exchange_n(&h->typed_event, &t, fr_record_typed, 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
}

static int patched_at_init;

void fr_functrace_after_dlopen(void)
{
    /* Objects the program loads while we trace get the same sleds patched as those
     * there at init (sleds already right are not rewritten), and their hooked functions
     * the same filter. */
    if (__atomic_load_n(&patched_at_init, __ATOMIC_ACQUIRE))
        (void)fr_sled_patch_filtered();
    if (fr_func_filter_prepare() >= 0)
        fr_finstrument_filter_changed(1);
    if (fr_libcalls_on())
        fr_libcalls_install();   /* the new objects' PLT entries */
    fr_backing_write_meta();   /* backing=: the new object's functions, for a recovery */
}

/* A message on stderr (printf-like; at init, never on a hot path). */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char msg[2400];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (len > 0)
        (void)!write(2, msg, (size_t)len < sizeof msg ? (size_t)len : sizeof msg - 1);
}

static void after_init(const struct fr_options *opts)
{
    fr_unwind_hooks_init();   /* also links the unwind hooks into static programs */
    fr_instr_map_refresh();
    fr_functrace_install_recorder(0);
    const char *patch = opts && opts->patch[0] ? opts->patch : "all";
    const char *exclude = opts ? opts->exclude : "";
    (void)fr_func_filter_set(patch, exclude);   /* the option parser checked both */
    long hooked = fr_func_filter_prepare();
    fr_finstrument_filter_changed(0);
    /* The filter as written, for messages: "patch=P", "exclude=E" or both. */
    int inc = strcmp(patch, "all") != 0, exc = exclude[0] != 0;
    char words[2100];
    snprintf(words, sizeof words, "%s%s%s%s%s", inc ? "patch=" : "", inc ? patch : "",
             inc && exc ? " " : "", exc ? "exclude=" : "", exc ? exclude : "");
    if (opts && opts->libcalls)
        fr_libcalls_install();
    if (hooked == 0)
        say("flightrec: %s: selects no -finstrument-functions function; none of them will "
            "be traced\n", words);
    if (!strcmp(patch, "none"))
        return;
    /* With no sleds loaded yet (a program without instrumentation that dlopens
     * instrumented plugins), the filter is still taken: each dlopen applies it. */
    bool none_yet = fr_instr_sled_total() == 0;
    fr_patch_status st = none_yet ? FR_PATCH_SUCCESS : fr_sled_patch_filtered();
    if (st == FR_PATCH_SUCCESS) {
        __atomic_store_n(&patched_at_init, 1, __ATOMIC_RELEASE);
        /* With an exclusion, the functions may all have matched (exclude=*): what is
         * said is that none is left, not that the pattern matched none. */
        if (!none_yet && fr_func_filter_narrows() && fr_sled_filter_hits() == 0)
            say("flightrec: %s: %s (ids are 1-%u); nothing will be traced\n", words,
                exc ? "leaves no instrumented function to trace" : "matches no instrumented function",
                (unsigned)fr_instr_max_function_id());
    } else {
        say("flightrec: %s: patching failed (mprotect refused?)\n", inc || exc ? words : "patch=all");
    }
}

static void before_finalize(void)
{
    if (patched_at_init) {
        __atomic_store_n(&patched_at_init, 0, __ATOMIC_RELEASE);
        fr_sled_patch_all(0);
    }
    fr_finstrument_resolve_names();
}

/* ---------------------------------------------------------------- metadata */

#define MAX_NAME 1024
#define MAX_OBJECTS_MARKED 1024

/* FR_TE_BUILD_ID: the fixed part, then the id as a str16 of raw bytes (which may hold
 * zeros, so not through fr_meta_emit_str16's string). */
static void emit_build_id(fr_meta_writer *w, const struct fr_instr_object *o)
{
    uint8_t payload[sizeof(struct fr_te_build_id) + 2 + sizeof o->build_id];
    struct fr_te_build_id id = { .object = o->index };
    uint16_t n = o->build_id_size;
    memcpy(payload, &id, sizeof id);
    memcpy(payload + sizeof id, &n, 2);
    memcpy(payload + sizeof id + 2, o->build_id, n);
    fr_meta_emit(w, FR_TE_BUILD_ID, payload, sizeof id + 2 + n);
}

static void emit_metadata(fr_meta_writer *w, void *ctx)
{
    (void)ctx;
    uint32_t n = fr_instr_object_count();
    static uint8_t used[MAX_OBJECTS_MARKED];   /* flushes are serialised by the core */
    memset(used, 0, sizeof used);
    fr_finstrument_mark_objects(used, n < MAX_OBJECTS_MARKED ? n : MAX_OBJECTS_MARKED);
    for (uint32_t i = 0; i < n; i++) {
        const struct fr_instr_object *o = fr_instr_object_at(i);
        if (!o->function_count && !(i < MAX_OBJECTS_MARKED && used[i]))
            continue;
        struct fr_te_object obj = { .index = o->index, .first_id = o->first_id,
                                    .last_id = o->last_id, .load_bias = o->bias };
        fr_meta_emit_str16(w, FR_TE_OBJECT, &obj, sizeof obj, o->path, 4096);
        if (o->build_id_size)
            emit_build_id(w, o);
    }
    for (uint32_t i = 0; i < n; i++) {
        const struct fr_instr_object *o = fr_instr_object_at(i);
        for (size_t k = 0; k < o->function_count; k++) {
            struct fr_te_function f = { .id = o->first_id + (uint32_t)k, .object = o->index,
                                        .address = o->functions[k].address };
            fr_meta_emit_str16(w, FR_TE_FUNCTION, &f, sizeof f, o->functions[k].name, MAX_NAME);
        }
    }
    fr_finstrument_emit(w);
    fr_libcalls_emit(w);
}

__attribute__((constructor)) static void functrace_register(void)
{
    static const fr_lifecycle_hooks hooks = {after_init, before_finalize};
    fr_meta_register_source(emit_metadata, NULL);
    fr_lifecycle_register_hooks(&hooks);
    fr_fork_set_child_hook(fr_fork_enter_open_frames);
}

/* Referenced by the static library's users (see CMake: --undefined) so that this file,
 * and with it the hooks above, is linked even when the program calls nothing of ours. */
__attribute__((visibility("default"))) const char fr_functrace_anchor = 1;
