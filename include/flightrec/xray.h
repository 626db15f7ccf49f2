/*
 * flightrec/xray.h - compiler-rt XRay's programming interface, for C and C++, implemented
 * by libflightrec.
 *
 * The same names, signatures and status codes as compiler-rt 14's xray/xray_interface.h
 * and xray/xray_log_interface.h (which are C++ only), so a program written for XRay
 * switches to flightrec by relinking: build with `clang -fxray-instrument
 * -fnoxray-link-deps` and link -lflightrec instead of compiler-rt's XRay runtime.
 *
 * The runtime behaves as compiler-rt 14's: XRAY_OPTIONS (patch_premain, xray_mode,
 * xray_logfile_base, verbosity, ...) read at start-up, log files named
 * <xray_logfile_base><argv[0] name>.XXXXXX, modes "xray-fdr" (flightrec's recorder),
 * "xray-basic" and "xray-profiling" registered, compiler-rt's messages at verbosity=1.
 * Every function and option, and each difference with its reason: docs/XRAY_COMPAT.md.
 * Extensions: __xray_log_init_mode("xray-fdr", CONFIG) also takes flightrec's own keys
 * (output, policy, threshold_us, ...; see flightrec.h); __xray_patch finds the
 * instrumentation maps of shared libraries too, whose function ids follow the
 * executable's (see the trace's object table).
 */
#ifndef FLIGHTREC_XRAY_H
#define FLIGHTREC_XRAY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define FR_XRAY_API __attribute__((visibility("default")))
#else
#define FR_XRAY_API
#endif

/* compiler-rt's own header defines these too; include one or the other. */
#ifndef XRAY_XRAY_INTERFACE_H
enum XRayEntryType {
    ENTRY = 0,
    EXIT = 1,
    TAIL = 2,
    LOG_ARGS_ENTRY = 3,
    CUSTOM_EVENT = 4,
    TYPED_EVENT = 5,
};
enum XRayPatchingStatus {
    NOT_INITIALIZED = 0,
    SUCCESS = 1,
    ONGOING = 2,
    FAILED = 3,
};
#endif
#ifndef XRAY_XRAY_LOG_INTERFACE_H
enum XRayLogInitStatus {
    XRAY_LOG_UNINITIALIZED = 0,
    XRAY_LOG_INITIALIZING = 1,
    XRAY_LOG_INITIALIZED = 2,
    XRAY_LOG_FINALIZING = 3,
    XRAY_LOG_FINALIZED = 4,
};
enum XRayLogFlushStatus {
    XRAY_LOG_NOT_FLUSHING = 0,
    XRAY_LOG_FLUSHING = 1,
    XRAY_LOG_FLUSHED = 2,
};
enum XRayLogRegisterStatus {
    XRAY_REGISTRATION_OK = 0,
    XRAY_DUPLICATE_MODE = 1,
    XRAY_MODE_NOT_FOUND = 2,
    XRAY_INCOMPLETE_IMPL = 3,
};
struct XRayLogImpl {
    enum XRayLogInitStatus (*log_init)(size_t, size_t, void *, size_t);
    enum XRayLogInitStatus (*log_finalize)(void);
    void (*handle_arg0)(int32_t, enum XRayEntryType);
    enum XRayLogFlushStatus (*flush_log)(void);
};
struct XRayBuffer {
    const void *Data;
    size_t Size;
};
#endif

#ifndef __cplusplus
typedef enum XRayEntryType XRayEntryType;
typedef enum XRayPatchingStatus XRayPatchingStatus;
typedef enum XRayLogInitStatus XRayLogInitStatus;
typedef enum XRayLogFlushStatus XRayLogFlushStatus;
typedef enum XRayLogRegisterStatus XRayLogRegisterStatus;
typedef struct XRayLogImpl XRayLogImpl;
typedef struct XRayBuffer XRayBuffer;
#endif

/* ---------------------------------------------------------------- xray_interface.h
 * Handlers return 1 on success. A handler must not itself be instrumented (mark it
 * __attribute__((xray_never_instrument))). */
FR_XRAY_API int __xray_set_handler(void (*entry)(int32_t, enum XRayEntryType));
FR_XRAY_API int __xray_remove_handler(void);
FR_XRAY_API int __xray_set_handler_arg1(void (*entry)(int32_t, enum XRayEntryType, uint64_t));
FR_XRAY_API int __xray_remove_handler_arg1(void);
FR_XRAY_API int __xray_set_customevent_handler(void (*entry)(void *, size_t));
FR_XRAY_API int __xray_remove_customevent_handler(void);
FR_XRAY_API int __xray_set_typedevent_handler(void (*entry)(uint16_t, const void *, size_t));
FR_XRAY_API int __xray_remove_typedevent_handler(void);
FR_XRAY_API uint16_t __xray_register_event_type(const char *event_type);

FR_XRAY_API enum XRayPatchingStatus __xray_patch(void);
FR_XRAY_API enum XRayPatchingStatus __xray_unpatch(void);
FR_XRAY_API enum XRayPatchingStatus __xray_patch_function(int32_t FuncId);
FR_XRAY_API enum XRayPatchingStatus __xray_unpatch_function(int32_t FuncId);
/* 0 for an id that does not exist. */
FR_XRAY_API uintptr_t __xray_function_address(int32_t FuncId);
/* The highest function id (ids start at 1), over all loaded objects. */
FR_XRAY_API size_t __xray_max_function_id(void);
FR_XRAY_API void __xray_init(void);

/* ---------------------------------------------------------------- xray_log_interface.h */
FR_XRAY_API void __xray_set_log_impl(struct XRayLogImpl Impl);
FR_XRAY_API enum XRayLogRegisterStatus __xray_log_register_mode(const char *Mode,
                                                                struct XRayLogImpl Impl);
FR_XRAY_API enum XRayLogRegisterStatus __xray_log_select_mode(const char *Mode);
FR_XRAY_API const char *__xray_log_get_current_mode(void);
FR_XRAY_API void __xray_remove_log_impl(void);
FR_XRAY_API enum XRayLogInitStatus __xray_log_init(size_t BufferSize, size_t MaxBuffers,
                                                   void *Args, size_t ArgsSize);
FR_XRAY_API enum XRayLogInitStatus __xray_log_init_mode(const char *Mode, const char *Config);
FR_XRAY_API enum XRayLogInitStatus __xray_log_init_mode_bin(const char *Mode,
                                                            const char *Config,
                                                            size_t ConfigSize);
FR_XRAY_API enum XRayLogInitStatus __xray_log_finalize(void);
FR_XRAY_API enum XRayLogFlushStatus __xray_log_flushLog(void);
FR_XRAY_API void __xray_log_set_buffer_iterator(struct XRayBuffer (*Iterator)(struct XRayBuffer));
FR_XRAY_API void __xray_log_remove_buffer_iterator(void);
FR_XRAY_API enum XRayLogFlushStatus __xray_log_process_buffers(
    void (*Processor)(const char *, struct XRayBuffer));

#ifdef __cplusplus
}
#endif
#endif
