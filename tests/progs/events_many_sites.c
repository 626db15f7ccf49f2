/*
 * events_many_sites.c - compact events of 80 call sites (tests/events_many_sites.sh):
 * site ids above 63 make keys of two varint bytes (key = id << 1), and the string field
 * (28-29 bytes) is longer than the recorder's inline copies (16 bytes). Each site's
 * event carries its own number twice (a u32 and the end of the string) and the round:
 * a reader must see every number match its site's name.
 *   events_many_sites OUTPUT
 */
#include <stdint.h>
#include <stdio.h>
#include "flightrec.h"
#include "flightrec/events.h"

FR_PROVIDER_DEFINE(many, "Many");

#define SITE(k)                                                                       \
    static void e##k(uint32_t round)                                                  \
    {                                                                                 \
        FR_EVENT(many, "E" #k, FR_U32("v", k), FR_U32("round", round),               \
                 FR_STR("s", "abcdefghijklmnopqrstuvwxyz" #k));                       \
    }
#define TENS(d) SITE(d##0) SITE(d##1) SITE(d##2) SITE(d##3) SITE(d##4) SITE(d##5) \
                SITE(d##6) SITE(d##7) SITE(d##8) SITE(d##9)
SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7) SITE(8) SITE(9)
TENS(1) TENS(2) TENS(3) TENS(4) TENS(5) TENS(6) TENS(7)

#define CALL(k) e##k(round);
#define CALL_TENS(d) CALL(d##0) CALL(d##1) CALL(d##2) CALL(d##3) CALL(d##4) CALL(d##5) \
                     CALL(d##6) CALL(d##7) CALL(d##8) CALL(d##9)

int main(int argc, char **argv)
{
    char opts[4200];
    if (argc < 2 || snprintf(opts, sizeof opts, "output=%s", argv[1]) >= (int)sizeof opts)
        return 2;
    if (fr_init(opts) != FR_OK)
        return 1;
    FR_PROVIDER_REGISTER(many);
    for (uint32_t round = 0; round < 3; round++) {
        CALL(0) CALL(1) CALL(2) CALL(3) CALL(4) CALL(5) CALL(6) CALL(7) CALL(8) CALL(9)
        CALL_TENS(1) CALL_TENS(2) CALL_TENS(3) CALL_TENS(4) CALL_TENS(5) CALL_TENS(6)
        CALL_TENS(7)
    }
    fr_finalize();
    return fr_flush() == FR_OK ? 0 : 1;
}
