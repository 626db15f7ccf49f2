/*
 * crash_worker.h - the worker thread the crash test programs share (crash_prog.c,
 * crash_backing_prog.c): it makes exactly CRASH_WORKER_CALLS traced calls of
 * worker_step(), then blocks for good, so that a test knows every thread's history
 * besides main's when the program dies.
 */
#ifndef CRASH_WORKER_H
#define CRASH_WORKER_H

#define CRASH_WORKER_CALLS 100

/* Written by the traced steps, so that no call is optimised away. */
extern volatile int crash_sink;

void worker_step(int i);
/* Starts the worker thread; returns once it has made its CRASH_WORKER_CALLS calls.
 * Returns 0, or -1 if the thread could not be started. */
int crash_worker_start(void);

#endif
