/*
 * hostile_idle.c - a program linked with libflightrec that never calls fr_init: whatever
 * it records comes from the start=1 constructor (FLIGHTREC_OPTIONS). Prints AT_SECURE so
 * that the setuid test can tell whether the kernel ran it in secure-execution mode.
 */
#include <stdio.h>
#include <sys/auxv.h>
#include "flightrec.h"

int main(void)
{
    fr_log_enter(1);
    fr_log_exit(1);
    printf("secure=%lu\n", getauxval(AT_SECURE));
    return 0;
}
