# crash_counts.sh - sourced by the snapshot tests (crash_snapshot.sh, crash_faults.sh):
#   summary_exact INFO WHAT   INFO is `flightrec info` of a snapshot of a program that
#                             makes function records only. A snapshot's summary counts
#                             what the snapshot holds, though threads went on recording
#                             while it was taken: the function records our reader reads
#                             are the summary's "records written", and per thread the
#                             reader's records are its THREAD_STATS' written plus its
#                             lost-record markers (at most one per block, and one per
#                             buffer of the pool: these tests' pools have at most 8).
# Needs fail() (frtest.sh, or the test's own).
summary_exact() {
  local info=$1 what=$2 fn w
  fn=$(( $(sed -n 's/^  enter: //p' "$info") + $(sed -n 's/^  exit: //p' "$info") ))
  w=$(sed -n 's/^records written: //p' "$info")
  [ "$fn" = "$w" ] || fail "$what: the reader reads $fn function records, the summary says written '$w'"
  while read -r tid blocks r tw; do
    [ "$r" -ge "$tw" ] && [ "$r" -le $((tw + blocks + 8)) ] ||
      fail "$what: thread $tid: the reader reads $r records in $blocks blocks, its stats say written $tw"
  done < <(sed -n 's/^thread \([0-9]*\):.* blocks \([0-9]*\), records \([0-9]*\),.* written \([0-9]*\),.*/\1 \2 \3 \4/p' "$info")
}
