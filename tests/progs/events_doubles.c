/*
 * events_doubles.c - writes a flight-recorder trace with one structured event whose
 * floating-point fields hold whole numbers (0, 1, -2, 1e20) and fractions:
 *   events_doubles OUTPUT
 * convert_perfetto_doubles.py checks that Perfetto's output keeps them doubles.
 */
#include <stdio.h>

#include "flightrec.h"
#include "flightrec/events.h"

FR_PROVIDER_DEFINE(app, "Doubles");

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: events_doubles OUTPUT\n");
        return 2;
    }
    char options[4096];
    snprintf(options, sizeof options, "output=%s", argv[1]);
    if (fr_init(options) != FR_OK || FR_PROVIDER_REGISTER(app))
        return 1;
    FR_EVENT(app, "Ratios", FR_DOUBLE("one", 1.0), FR_DOUBLE("zero", 0.0), FR_DOUBLE("neg", -2.0),
             FR_DOUBLE("big", 1e20), FR_DOUBLE("half", 0.5), FR_FLOAT("f_one", 1.0f),
             FR_U32("count", 1), FR_I32("minus", -1));
    return 0;   /* a normal exit while recording writes the trace */
}
