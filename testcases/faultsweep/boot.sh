#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# boot.sh - build the fault sweep, pack it into an initramfs and boot a
# kernel with it in QEMU (TCG); the console goes to LOG.
#
#   boot.sh x86_64  O/arch/x86/boot/bzImage LOG   # faultsweep-x86_64, then -i386
#   boot.sh ppc64le O/vmlinux LOG                  # faultsweep-ppc64le as /init
#
# The records are the console lines that start with "# sweep":
#   tr -d '\r' < LOG | grep '^# sweep'
# Every command is echoed before it runs.  TIMEOUT (seconds, default 900)
# ends a hung boot.
set -eu

[ $# -eq 3 ] || { echo "usage: $0 x86_64|ppc64le KERNEL LOG" >&2; exit 2; }
arch=$1 kernel=$2 log=$3
here=$(cd "$(dirname "$0")" && pwd)
src=$here/faultsweep.c
timeout=${TIMEOUT:-900}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/dev" "$root/proc" "$root/sys" "$root/tmp" "$root/bin"

run() { echo "+ $*" >&2; "$@"; }

cflags='-static -O2 -Wall -Werror'
case $arch in
x86_64)
	run gcc $cflags -o "$root/faultsweep-x86_64" "$src"
	# bookworm's gcc-multilib has no asm/ for -m32: the x86 uapi ones serve both
	run gcc -m32 $cflags -idirafter /usr/include/x86_64-linux-gnu \
		-o "$root/faultsweep-i386" "$src"
	run cp /bin/busybox "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
	cat > "$root/init" <<'EOF'
#!/bin/busybox sh
bb=/bin/busybox
$bb mount -t proc proc /proc
$bb mount -t sysfs sysfs /sys
$bb mount -t devtmpfs devtmpfs /dev
$bb mount -t tmpfs tmpfs /tmp
# warnings and worse only, and no "segfault at" lines for the children
# the sweep lets the kernel kill: nothing splits a record line
echo 4 > /proc/sys/kernel/printk
echo 0 > /proc/sys/debug/exception-trace
echo '# faultsweep-init begin'
/faultsweep-x86_64; echo "# faultsweep-init x86_64 exit $?"
/faultsweep-i386; echo "# faultsweep-init i386 exit $?"
echo '# faultsweep-init end'
$bb reboot -f
EOF
	chmod 755 "$root/init"
	set -- qemu-system-x86_64 -nodefaults -m 512 -nographic -no-reboot \
		-serial stdio -bios qboot.rom -cpu max \
		-kernel "$kernel" -initrd "$work/initramfs.cpio" \
		-append 'console=ttyS0 panic=-1'
	;;
ppc64le)
	# no busybox for ppc64el here: the program is /init (see be_init())
	run powerpc64le-linux-gnu-gcc $cflags -o "$root/init" "$src"
	set -- qemu-system-ppc64 -M pseries,cap-htm=off -cpu power9 -m 1024 \
		-nodefaults -nographic -no-reboot -serial stdio \
		-kernel "$kernel" -initrd "$work/initramfs.cpio" \
		-append 'console=hvc0 panic=-1'
	;;
*)
	echo "$0: unknown arch $arch" >&2
	exit 2
	;;
esac

# the kernel opens /dev/console before /init runs
run mknod -m 600 "$root/dev/console" c 5 1
echo "+ (cd $root && find . | cpio -o -H newc) > $work/initramfs.cpio" >&2
(cd "$root" && find . | LC_ALL=C sort | cpio --quiet -o -H newc) > "$work/initramfs.cpio"

start=$(date +%s)
echo "+ timeout $timeout $* > $log" >&2
rc=0
timeout "$timeout" "$@" < /dev/null > "$log" 2>&1 || rc=$?
echo "boot: exit $rc after $(( $(date +%s) - start )) s, $(tr -d '\r' < "$log" | grep -c '^# sweep ') records" >&2
exit $rc
