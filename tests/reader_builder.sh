#!/bin/sh
# reader_builder.sh SAMPLE_PROG LLVM_XRAY WORKDIR
# The trace builder's output must be a valid FDR v5 file for llvm-xray (an independent
# reader): fdr-dump -verify accepts it, and convert sees every record we wrote
# (12 function records, 1 custom event, 1 typed event and 3 metadata records, which are
# custom events (docs/FORMAT.md); the total counts each once).
set -eu
sample=$1 xray=$2 dir=$3
mkdir -p "$dir"
"$sample" "$dir/builder.xray"
"$xray" fdr-dump -verify "$dir/builder.xray" >"$dir/builder.dump"
"$xray" convert --output-format=yaml "$dir/builder.xray" >"$dir/builder.yaml"
count() { grep -c "kind: $1" "$dir/builder.yaml" || true; }
total=$(grep -c '^  - {' "$dir/builder.yaml")
fn=$(grep -c 'kind: function-' "$dir/builder.yaml")
custom=$(count custom-event)
typed=$(count typed-event)
echo "records=$total function=$fn custom=$custom typed=$typed"
[ "$total" -eq 17 ] && [ "$fn" -eq 12 ] && [ "$custom" -eq 4 ] && [ "$typed" -eq 1 ]
