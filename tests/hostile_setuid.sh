#!/bin/sh
# hostile_setuid.sh PROG - in a setuid-root program (AT_SECURE) FLIGHTREC_OPTIONS set by an
# unprivileged user neither turns tracing on nor chooses the output (issue 15 item 2).
# Needs root and setpriv; a nosuid /tmp (AT_SECURE not set) reports Skipped.
P=$1
[ "$(id -u)" = 0 ] || { echo "not root: skipped"; exit 77; }
command -v setpriv >/dev/null || { echo "no setpriv: skipped"; exit 77; }
D=$(mktemp -d /tmp/hostile_setuid.XXXXXX) || exit 1
trap 'rm -rf "$D"' EXIT
chmod 755 "$D"
cp "$P" "$D/prog" && chown root:root "$D/prog" && chmod 4755 "$D/prog" || exit 1
echo "root secret" > "$D/victim"; chmod 600 "$D/victim"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
      env FLIGHTREC_OPTIONS="start=1 output=$D/victim" "$D/prog")
case "$out" in
  secure=1) ;;
  *) echo "AT_SECURE not set ($out; nosuid mount?): skipped"; exit 77 ;;
esac
[ "$(cat "$D/victim")" = "root secret" ] || { echo "FAIL: setuid program replaced a root file"; exit 1; }
[ "$(stat -c %a "$D/victim")" = 600 ] || { echo "FAIL: victim mode changed"; exit 1; }
ls -a "$D" | grep -q tmp && { echo "FAIL: temporary file left"; exit 1; }
echo ok
