/* consumer.c - uses the installed public API: init, a few records, finalize, flush. */
#include <flightrec.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTPUT\n", argv[0]);
        return 2;
    }
    char options[4200];
    snprintf(options, sizeof options, "output=%s policy=discard", argv[1]);
    if (fr_init(options) != FR_OK) return 1;
    for (uint32_t i = 1; i <= 10; i++) {
        fr_log_enter(i);
        fr_log_exit(i);
    }
    if (fr_finalize() != FR_OK || fr_flush() != FR_OK) return 1;
    return 0;
}
