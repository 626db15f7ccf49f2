/* status.c - names of lifecycle results, for messages. */
#include "flightrec.h"

const char *fr_status_string(fr_status status)
{
    switch (status) {
    case FR_OK:          return "ok";
    case FR_ERR_STATE:   return "call not valid in the recorder's current state";
    case FR_ERR_OPTIONS: return "bad options";
    case FR_ERR_NOMEM:   return "out of memory for the buffer pool";
    case FR_ERR_IO:      return "could not write the trace file";
    }
    return "unknown status";
}
