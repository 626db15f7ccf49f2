/*
 * visibility.h - the one spelling of "internal to libflightrec".
 *
 * The runtime is compiled with -fvisibility=hidden, so definitions are already hidden;
 * the attribute on the declarations in the internal headers additionally lets the
 * compiler reach these symbols without going through the GOT/PLT (they can never be
 * interposed), and tells a reader of the header that the symbol is not API.
 * Exported symbols (the public headers' functions) are marked visibility("default").
 */
#ifndef FLIGHTREC_VISIBILITY_H
#define FLIGHTREC_VISIBILITY_H

#define FR_HIDDEN __attribute__((visibility("hidden")))

#endif
