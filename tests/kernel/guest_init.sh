#!/bin/busybox sh
# guest_init.sh - /init of the kernel tests' virtual machine (tests/kernel/vm.py builds
# the initramfs): mounts what the tests need, runs every scenario of /tests.sh (or those
# named on the kernel command line as fr_tests=a,b), each in its own folder of /results
# and bounded in time, then sends /results to the host as a base64 tar.gz on the second
# serial port (ttyS1) and ends the machine. Console (ttyS0): the progress lines.
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin:/sbin HOME=/tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tracefs nodev /sys/kernel/tracing
mkdir -p /results
# The machine's clock starts at the epoch: give it the host's, for the files' times.
[ -f /host_time ] && date -s "@$(cat /host_time)" >/dev/null 2>&1
echo "guest: $(uname -r), $(nproc) CPUs, $(grep MemTotal /proc/meminfo)"

. /tests.sh
only=$(sed -n 's/.*fr_tests=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' ')
for t in ${only:-$ALL_TESTS}; do
  mkdir -p "/results/$t"
  start=$(date +%s)
  ( cd "/results/$t" && timeout "${FR_GUEST_TIMEOUT:-300}" sh -c ". /tests.sh; cd /results/$t; t_$t" \
      >log.txt 2>&1 )
  rc=$?
  echo "$rc" >"/results/$t/rc"
  echo "guest: $t rc=$rc $(( $(date +%s) - start )) s"
  cleanup_all >/dev/null 2>&1
done
dmesg >/results/dmesg.txt
echo "guest: sending results"
# Framed, so that the host tells a cut from damage; closing the port waits until the
# UART has sent it all.
{ echo RESULTS-BEGIN; tar -c -C /results . | gzip -1 | base64; echo RESULTS-END; } >/dev/ttyS1
sync
echo "FLIGHTREC-GUEST-END"
reboot -f
