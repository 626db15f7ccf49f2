/*
 * flightrec.h - the flight recorder's public C API.
 *
 * Every thread writes compact records into its own in-memory buffers; the trace is
 * written as an XRay FDR v5 file (readable by llvm-xray and by `flightrec`) on flush,
 * at exit, on a signal or on a crash. Link with -lflightrec (pkg-config flightrec).
 *
 * Options (FLIGHTREC_OPTIONS or the string given to fr_init): key=value pairs separated
 * by spaces or commas; a value in "double" or 'single' quotes may hold both (a path:
 * output="/home/me/My Traces/t.fr"), up to the same quote, no escapes. In a secure-execution process (setuid/setgid, AT_SECURE) the
 * environment (FLIGHTREC_OPTIONS, XRAY_OPTIONS, XRAY_FDR_OPTIONS) is ignored: only fr_init's
 * string applies. A start=1 start-up that fails says why on stderr.
 *   output=PATH        trace file, "%p" expands to the pid (default flightrec-%p.fr)
 *                      Without %p, PATH is the trace of the run's first process (its pid
 *                      goes to the environment as FLIGHTREC_RUN_PID); every other process
 *                      (a fork child, a child that execs a traced program) writes
 *                      PATH.PID, and says so on stderr.
 *                      A relative PATH (and a relative snapshot_output= or backing=) is
 *                      taken from the working directory at fr_init, not at the write
 *                      (a program that changes directory still writes where it started).
 *                      Written to "<dir>/.<name>.<random>.tmp" (O_EXCL|O_NOFOLLOW, in the
 *                      target's directory) then renamed over PATH; a symlink at PATH is
 *                      replaced, not followed. A FIFO or character device (/dev/null,
 *                      /dev/stdout) is written in place; a FIFO with no reader fails, no hang.
 *   file_mode=OCTAL    permission bits of the trace file (default 0600, at most 0777; umask
 *                      still applies)
 *   buffer_size=BYTES  size of one buffer (K/M/G suffixes; default 4K, at least 1K)
 *   buffers=N          number of buffers in the pool (default 4096)
 *   policy=overwrite|discard   when a thread's buffers are full: keep newest (default) /
 *                      keep oldest
 *   threshold_us=N     calls shorter than N microseconds leave no records (default 0;
 *                      both front ends). uftrace -t.
 *   start=1            initialise (and patch) at program start-up
 *   patch=all|none|PATTERN     which instrumented functions to record: items separated by
 *                      ':' (not a C++ "::"), each a name glob, an id or ids N-M; a C++
 *                      function matches by its name as linked, demangled in full, or
 *                      without template arguments and parameters ("ns::Box::get*").
 *                      XRay: only these sleds are patched; gcc -finstrument-functions:
 *                      the hooks record only these (ids select sleds only). none: no
 *                      sled patched (the gcc hooks still record). uftrace -F.
 *   libcalls=1         record the calls instrumented objects make through their PLT into
 *                      shared libraries (malloc, write...), named as the library function
 *                      (docs/FUNCTRACE.md "Library calls"). uftrace's PLT hooking.
 *                      x86-64 only: refused on other CPUs.
 *   exclude=PATTERN    functions never recorded (same patterns; both front ends).
 *                      uftrace -N.
 *   max_depth=N        record calls only down to depth N of each thread (1..65535; deeper
 *                      calls leave no record and are not drops). uftrace -D.
 *   crash_dump=1       on SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTRAP, write the
 *                      trace (every thread's history up to the signal, the crashing
 *                      thread's up to the faulting call) to `output`, then let the signal
 *                      do what it would have done: the program's own handler installed
 *                      before fr_init runs, or the default action (same exit status, same
 *                      core dump). The file's metadata names the signal, the faulting
 *                      address and the thread (`flightrec info`: "written on:"). Each
 *                      recording thread gets a 64 KiB alternate signal stack (unless it
 *                      has one), so a stack overflow is dumped too. A handler the program
 *                      installs after fr_init replaces ours (no dump for that signal)
 *                      unless it calls the handler it replaced. A fault inside the dump
 *                      abandons it (message on stderr, no file). Default 0; on under
 *                      `flightrec record`.
 *   signal_flush=1     on SIGTERM, SIGINT or SIGHUP whose action is the default
 *                      (termination), write the trace first, then terminate as the signal
 *                      would. For one the program handles itself, the trace so far is
 *                      written to `output` while recording goes on (as fr_snapshot), then
 *                      its handler runs (if the program then exits normally, the exit
 *                      writes the whole trace over it); an ignored one stays ignored.
 *                      Default 0; on under `flightrec record`.
 *   snapshot_signal=SIG   SIGUSR1, SIGUSR2 or a real-time signal (SIGRTMIN+N, or its
 *                      number): receiving it writes a snapshot (fr_snapshot(NULL)) and
 *                      recording goes on; `flightrec snapshot PID` sends it. Default none.
 *   snapshot_output=PATTERN   snapshot file names ("%p" pid, "%n" snapshot number;
 *                      default: the trace's name followed by ".%n")
 *   stream=1           a background thread appends each buffer to `output` as it fills and
 *                      hands it back to the pool, so a run of any length is kept in a
 *                      fixed pool. The file is created at fr_init (as above: an O_EXCL
 *                      temporary, renamed over `output` at once; fr_init fails with
 *                      FR_ERR_IO if it cannot be) and grows in place; after each whole
 *                      block it is a valid trace (`flightrec info` and llvm-xray read it
 *                      while the program runs); its end (the buffers left, the totals) is
 *                      appended at exit, fr_finalize + fr_flush, fr_reset or a crash dump.
 *                      Recording never waits for the disk: when the disk is slower than
 *                      the program, discard drops new records (counted "stream writer
 *                      behind"), overwrite overwrites the oldest buffer not yet written
 *                      (counted "overwritten", gaps marked). A write error (disk full)
 *                      is said once on stderr; the file then ends at its last whole
 *                      block. A fork child streams to its own file (the output naming
 *                      rules). A snapshot (fr_snapshot, snapshot_signal=) holds the
 *                      whole history: the streamed file's blocks so far, then the
 *                      buffers not yet in it (the writer waits meanwhile, recording
 *                      goes on; a FIFO or device output: the buffers only). Not with
 *                      no_file_flush=1. Default 0.
 *   backing=PATH       the pool and what a trace needs besides the records live in a
 *                      MAP_SHARED mapping of the file PATH ("%p": pid), created
 *                      O_EXCL|O_NOFOLLOW with file_mode: when the process dies without
 *                      writing its trace (SIGKILL, the OOM killer, _exit), `flightrec
 *                      recover PATH -o trace.fr` makes the trace from it. Records cost
 *                      the same (use a tmpfs such as /dev/shm). The file is removed once
 *                      the trace is written (normal exit, flush, crash dump) and kept
 *                      otherwise; a fork child records into a file of its own (PATH with
 *                      its pid for %p, else PATH.PID). backing=0: none (default; on
 *                      under `flightrec record`). docs/BACKING.md.
 *   events=SPEC[;SPEC]  structured events the recorder keeps (flightrec/events.h; ','
 *                      separates SPECs too: "events=A:4,B:*,start=1")
 *   user_events=auto|on|off   the Linux user_events sink (flightrec/events.h): auto
 *                      (default) uses it where the kernel has it and is silent where not;
 *                      on also says once on stderr when it is unavailable; off never
 *                      touches it. Read from FLIGHTREC_OPTIONS at the first provider
 *                      registration.
 *   clock=auto|tsc|monotonic   the timestamp source (auto: the TSC if CPUID says it is
 *                      invariant, else CLOCK_MONOTONIC)
 *   sched=1            scheduling marks: each thread's stretches off the CPU (its own
 *                      context switches through perf_event_open) in its history, for
 *                      replay, Perfetto and account --exclude-off-cpu; where the kernel
 *                      refuses, said once on stderr and recorded without (docs/CLI.md)
 * Also accepted, for the XRay FDR mode: buffer_max (= buffers), func_duration_threshold_us
 * (= threshold_us), grace_period_ms (ignored), no_file_flush=1 (no file at exit).
 * Writing a trace never lets SIGXFSZ (`ulimit -f`) kill the program: the write fails
 * (EFBIG), the partial temporary file is removed and a message says so.
 * Each unknown key or bad value is reported once on stderr and fr_init fails with
 * FR_ERR_OPTIONS. fr_init applies FLIGHTREC_OPTIONS first, then its own string on top.
 *
 * Start-up: when FLIGHTREC_OPTIONS contains start=1 the recorder is initialised by a
 * constructor, with no call in the program. When the process exits normally (exit() or
 * return from main) while recording, it is finalized and the file written.
 *
 * Policies. discard: a thread takes free buffers from the pool; when none is left its
 * new records are dropped (the oldest history is kept). overwrite: every thread holds at
 * most its fair share of the pool, max(1, buffers / live threads); below its share it
 * takes a free buffer, else the oldest buffer another thread can spare (one left by an
 * exited thread, or an older buffer of a thread holding more than its share: a thread
 * that starts after the pool filled still gets room, an idle thread cannot keep it all);
 * at its share it overwrites its own oldest buffer. Every dropped record is counted, by
 * cause (overwritten, no free buffer, larger than a buffer, nested in a signal handler,
 * beyond the thread limit, invalid event, after thread exit, thread inside a record
 * when recording stopped); fr_flush prints one stderr line naming the causes when any
 * were dropped, and the file carries the counts (FR_TE_SUMMARY, FR_TE_THREAD_STATS,
 * FR_TE_DROPS) and an FR_TE_LOST event where a thread's kept history starts after
 * overwritten records. docs/BUFFERS.md states the protocol.
 *
 * Memory: the pool (buffers x buffer_size) must fit in what the process may still have
 * (RLIMIT_AS, its memory cgroup's limit, MemAvailable: at most 7/8 of the smallest);
 * else fr_init returns FR_ERR_NOMEM and says which limit on stderr. Pools up to 64 MiB
 * are pre-faulted at init, larger ones are faulted in as threads reach them.
 *
 * Threads: a thread that exits hands its buffers back with their data, which stays in
 * the trace (in overwrite mode other threads may take them, oldest first). Up to 4096
 * threads are tracked at once: live threads, and exited ones whose records are still in
 * the pool; the slot of an exited thread with nothing left in the pool is reused (its
 * counts then stay in the session's totals only). Records of threads beyond that are
 * dropped and counted. Thread exit takes no lock (it never waits for a file write).
 * After fork() the child starts with empty buffers and writes its own file: `output`
 * with %p expanded to the child's pid, or `output` followed by ".PID" when it has no %p;
 * signals are blocked in the forking thread across fork. A vfork child shares the
 * parent's recorder: its records before exec land in the parent thread's buffer, and
 * exit() in it does not write the parent's trace.
 *
 * Recording functions are safe from any thread and from signal handlers; they take no
 * lock and allocate nothing; the only system call is gettid, once, at a thread's first
 * record (its registration). A record made by a signal handler
 * that interrupted a record on the same thread is dropped and counted; records from
 * handlers that run between records are kept. Custom and typed events need at least one
 * payload byte (llvm-xray rejects empty ones) and must fit in a buffer; typed event
 * types 0xF000..0xF0FF are reserved for flightrec's own; others are dropped and counted.
 */
#ifndef FLIGHTREC_H
#define FLIGHTREC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define FR_API __attribute__((visibility("default")))
#else
#define FR_API
#endif

/* Lifecycle states, the same as XRay's. */
typedef enum fr_state {
    FR_STATE_UNINITIALIZED = 0,
    FR_STATE_INITIALIZING  = 1,
    FR_STATE_INITIALIZED   = 2,
    FR_STATE_FINALIZING    = 3,
    FR_STATE_FINALIZED     = 4,
} fr_state;

/* Results of lifecycle calls. A call in the wrong state returns FR_ERR_STATE and
 * changes nothing. */
typedef enum fr_status {
    FR_OK           = 0,
    FR_ERR_STATE    = 1, /* wrong state for this call */
    FR_ERR_OPTIONS  = 2, /* bad option string (reported on stderr) */
    FR_ERR_NOMEM    = 3, /* could not allocate the buffer pool */
    FR_ERR_IO       = 4, /* could not write the trace file */
} fr_status;

/* fr_init after fr_finalize (state FINALIZED) first writes the finalized session's
 * trace if fr_flush did not (unless no_file_flush=1), then resets and starts anew; if
 * that write fails it returns FR_ERR_IO and the session stays FINALIZED. */
FR_API fr_status fr_init(const char *options);  /* UNINITIALIZED/FINALIZED -> INITIALIZED */
FR_API fr_status fr_finalize(void);             /* INITIALIZED -> FINALIZED: recording stops */
FR_API fr_status fr_flush(void);                /* FINALIZED: write the trace file */
FR_API fr_status fr_reset(void);                /* FINALIZED -> UNINITIALIZED, buffers freed */
FR_API fr_state  fr_get_state(void);
FR_API const char *fr_status_string(fr_status status);
/* Path of the last trace file written by fr_flush, or NULL. */
FR_API const char *fr_last_output_path(void);

/* Writes the history recorded so far to a new file while recording goes on (INITIALIZED
 * only; else FR_ERR_STATE). `path`: "%p" -> pid, "%n" -> the snapshot's number (1, 2, ...
 * per process), "%%" -> "%"; NULL: the snapshot_output option. Records made while it is
 * written stay in the buffers (the later trace has them); a buffer a thread recycles
 * while the snapshot reads it is left out and its records counted as "not captured
 * consistently" (`flightrec info`: "written on: snapshot N, ..."). The file's summary
 * counts the records the file holds, and each thread's drops as they were when its
 * records were read. With stream=1 the snapshot starts with the streamed file's blocks
 * so far (docs/BUFFERS.md). One snapshot at a time (FR_ERR_STATE while another is
 * written). `path` must be able to seek back (a file): into a FIFO or a device the
 * snapshot fails ("cannot seek back"). Async-signal-safe; FR_ERR_IO if the file cannot
 * be written (message on stderr). */
FR_API fr_status fr_snapshot(const char *path);

/* Records. Each is a no-op unless the recorder is INITIALIZED. */
FR_API void fr_log_enter(uint32_t function_id);
FR_API void fr_log_exit(uint32_t function_id);
FR_API void fr_log_tail_exit(uint32_t function_id);
FR_API void fr_log_enter_arg(uint32_t function_id, uint64_t arg);
FR_API void fr_log_custom_event(const void *data, size_t size);
FR_API void fr_log_typed_event(uint16_t type, const void *data, size_t size);

/* Totals of the current session: records_written = records held in the buffers (what
 * the file will contain), records_dropped = records lost (refused, overwritten, nested
 * in a signal handler, ...: every cause). Exact once finalized; while recording, the
 * figures of buffers still being filled by running threads are not included. */
typedef struct fr_stats {
    uint64_t records_written;
    uint64_t records_dropped;
    uint64_t calls_below_threshold;
    uint32_t threads;
} fr_stats;
FR_API void fr_get_stats(fr_stats *out);

#ifdef __cplusplus
}
#endif
#endif
