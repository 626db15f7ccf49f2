/*
 * process_info.h - the process facts of FR_TE_PROCESS (fr_session.process), read once.
 */
#ifndef FLIGHTREC_PROCESS_INFO_H
#define FLIGHTREC_PROCESS_INFO_H

#include "core/visibility.h"

/* Reads pid, ppid, name, executable and command line into fr_session.process (at init,
 * and in a fork child that goes on recording). */
FR_HIDDEN void fr_process_info_read(void);

#endif
