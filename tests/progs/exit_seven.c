/* A program that links libflightrec, has no instrumentation and exits 7: `flightrec record`
   must return the program's own exit status. */
int main(void) { return 7; }
