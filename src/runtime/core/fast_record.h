/*
 * fast_record.h - the contract between the C recorder and an architecture's fast path
 * (trampolines_<cpu>.S), which writes a function record itself, without calling C, when
 * nothing unusual is going on. Constants only, so that assembly can include it; the C
 * side checks them against struct fr_thread (thread_writer.c).
 *
 * The fast path may write a record only when every one of these holds, and goes to the
 * C path (fr_record_function, with every register a C function may clobber saved)
 * otherwise; the C path repeats every check, so "go slow" is always correct:
 *   - the installed sled handler is fr_record_function (the recorder itself);
 *   - busy == 0 (no record of this thread is being written: a signal handler that
 *     interrupted one goes slow, where the drop is counted); busy is set to 1 before
 *     fr_recording is read and cleared after the state is updated, as guard_enter and
 *     guard_leave do (the stopper's membarrier relies on that order);
 *   - fr_recording != 0 (when 0: clear busy, write nothing, as the C path would) and
 *     fr_recording == fast_session. fast_session is the thread's session when records
 *     of this thread can take the fast path at all: the cycle counter (fr_arch_rdtsc:
 *     the TSC, cntvct_el0) is the clock, no threshold_us rewind, no sched marks, no
 *     max_depth; else 0 (reset_thread_state sets it);
 *   - the function id fits the record (<= FR_XRAY_MAX_FUNCTION_ID);
 *   - pos + 8 <= end, as unsigned addresses (a detached state, both NULL or pos past
 *     end, never passes);
 *   - the CPU word (the 32-bit word at thread pointer + fr_cpu_fast_offset: rseq's
 *     cpu_id, or a thread-local 0 where rseq is not registered, as fr_cpu_raw returns)
 *     equals cpu, and the clock delta since last_tsc fits in 32 bits.
 * Then, in this order: store the 8-byte record at pos (word = id << 4 | kind << 1,
 * delta in the upper 32 bits), store pos + 8 to pos with release order (after the
 * record: a snapshot copies up to pos, loaded with acquire; a plain store on x86-64,
 * stlr on aarch64), store the clock to last_tsc, increment records, clear busy (a
 * release store, as guard_leave: stlr on aarch64).
 * enter_run needs no store: it stays 0 while fast_session is set (no rewind).
 *
 * The shadow stack (functrace/shadow_stack.h) is kept by the same trampolines, before
 * the record: its slow cases emit exits for dead frames, which must precede the record.
 */
#ifndef FLIGHTREC_FAST_RECORD_H
#define FLIGHTREC_FAST_RECORD_H

/* struct fr_thread (thread_writer.h), byte offsets from the start of fr_tls. */
#define FR_THREAD_OFF_POS          0    /* uint8_t * */
#define FR_THREAD_OFF_END          8    /* uint8_t * */
#define FR_THREAD_OFF_LAST_TSC     16   /* uint64_t */
#define FR_THREAD_OFF_CPU          24   /* uint32_t */
#define FR_THREAD_OFF_BUSY         28   /* uint32_t */
#define FR_THREAD_OFF_RECORDS      40   /* uint64_t */
#define FR_THREAD_OFF_FAST_SESSION 60   /* uint32_t */

/* The largest function id a record holds (fdr_records.h FR_XRAY_MAX_FUNCTION_ID). */
#define FR_FAST_MAX_FUNCTION_ID 0x0FFFFFFF

#endif
