/* functrace_plain.c - links libflightrec but has no function instrumentation:
 * `flightrec record` must refuse it with a clear message. */
#include <flightrec.h>
int main(void) { return fr_get_state() == FR_STATE_UNINITIALIZED ? 0 : 1; }
