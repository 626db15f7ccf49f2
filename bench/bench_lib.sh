# bench_lib.sh - sourced by the benchmark scripts.
# keep_min FILE VALUE: FILE holds the smallest VALUE given for it so far (runs of one
# variant are interleaved with the others', the best of each kept).
keep_min() {
  if [ -f "$1" ]; then
    awk -v a="$(cat "$1")" -v v="$2" 'BEGIN { print (v < a) ? v : a }' >"$1.new"
    mv "$1.new" "$1"
  else
    echo "$2" >"$1"
  fi
}
