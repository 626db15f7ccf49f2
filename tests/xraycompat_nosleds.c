/* xraycompat_nosleds.c - built with -fxray-instrument but too small to get any sled:
 * compiler-rt says "XRay instrumentation map missing" at verbosity=1. */
#include <stdio.h>
int main(void) { puts("no sleds"); return 0; }
