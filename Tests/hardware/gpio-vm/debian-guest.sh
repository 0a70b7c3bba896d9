# shellcheck shell=bash
# debian-guest.sh - the Debian guest of `run --guest debian`, sourced by run
# (which defines log, die, need_pkgs, fetch_deb, CACHE, KDIR, KVER, WORK, HERE).
#
# A Debian 12 system with systemd as PID 1: a root filesystem made once with
# debootstrap from Debian's packages and kept in the cache (rebuilt when its
# recipe below changes: the key hashes these functions and the package list),
# turned into a fresh ext4 disk image each run with `mkfs.ext4 -d` together
# with the files of --add and the harness's own units. A small busybox
# initramfs loads the modules that Debian's kernel keeps out of the kernel
# image (virtio, the disk, ext4) and hands over to systemd.

# What the appliance's Debian runs, minus what the test must not have: no
# timesyncd (no NTP traffic), no resolved, no apt sources (install.sh finds every
# runtime package installed and never reaches the network).
DEBIAN_PACKAGES=(systemd systemd-sysv udev dbus iproute2 kmod avahi-daemon avahi-utils
	libgpiod2 libsqlite3-0 libcurl4 libxml2 libmicrohttpd12 curl)
# The modules the guest loads: in the initramfs the disk's, in the image also
# the network's and gpio-sim (built by run, like for the small guest).
DEBIAN_INITRD_MODULES=(virtio_pci virtio_blk ext4)
DEBIAN_MODULES=(virtio_pci virtio_blk ext4 virtio_net configfs autofs4)

# debian_mirror: the Debian archive apt uses on this host (deb822 or one-line
# sources), or GPIO_VM_MIRROR.
debian_mirror() {
	if [ -n "${GPIO_VM_MIRROR:-}" ]; then
		echo "$GPIO_VM_MIRROR"
		return 0
	fi
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		# a stanza whose Suites name plain "bookworm" and whose URI is Debian's archive
		awk 'BEGIN { RS = "" }
			/(^|\n)Suites:[^\n]*[ \t]bookworm([ \t]|\n|$)/ {
				n = split($0, l, "\n")
				for (i = 1; i <= n; i++) if (l[i] ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", l[i]); split(l[i], u, " "); print u[1]; exit }
			}' "$f"
	done | grep -m1 '/debian/\?$' && return 0
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" { for (i = 2; i < NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($(i + 1) == "bookworm") print $i; break } }' |
		grep -m1 '/debian/\?$'
}

# debian_modules DEST MODULE...: the modules with their dependencies from the
# linux-image .deb of KVER, unpacked into DEST/lib/modules/KVER; prints them in
# load order (relative paths).
debian_modules() {
	local dest=$1 x=$WORK/kmods deb m
	shift
	if [ ! -d "$x/lib/modules/$KVER" ]; then
		deb=$(fetch_deb "linux-image-$KVER=$(cat "$KDIR/pkgversion")") || die "cannot download linux-image-$KVER"
		mkdir -p "$x"
		dpkg-deb --fsys-tarfile "$deb" | timeout 300 tar -x -C "$x" "./lib/modules/$KVER" || die "cannot unpack $deb"
		rm -f "$deb"
		depmod -b "$x" "$KVER" || die "depmod failed"
	fi
	for m in "$@"; do
		modprobe -d "$x" -S "$KVER" --show-depends "$m" || die "module $m not found in linux-image-$KVER"
	done | awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++' | while read -r m; do
		m=${m#"$x/lib/modules/$KVER/"}
		mkdir -p "$dest/lib/modules/$KVER/$(dirname "$m")"
		case $m in
		*.xz) xz -dc "$x/lib/modules/$KVER/$m" >"$dest/lib/modules/$KVER/${m%.xz}" && m=${m%.xz} ;;
		*) cp "$x/lib/modules/$KVER/$m" "$dest/lib/modules/$KVER/$m" ;;
		esac
		echo "$m"
	done
}

build_debian_rootfs() { # DIR
	local t=$1.tmp mirror
	mirror=$(debian_mirror) || die "no Debian bookworm archive in apt's sources (set GPIO_VM_MIRROR)"
	log "building the Debian guest's root filesystem with debootstrap from $mirror (first run only, ~1-2 min)"
	rm -rf "$t"
	mkdir -p "$t"
	if ! timeout 1200 debootstrap --variant=minbase --include="$(
		IFS=,
		echo "${DEBIAN_PACKAGES[*]}"
	)" bookworm "$t/root" "$mirror" >"$WORK/debootstrap.log" 2>&1; then
		tail -n 20 "$WORK/debootstrap.log" >&2
		die "debootstrap failed (log above)"
	fi
	local r=$t/root
	# modules: Debian's, for this kernel, plus the gpio-sim.ko built for the small guest
	debian_modules "$r" "${DEBIAN_MODULES[@]}" >/dev/null
	cp -a "$KDIR/modroot/lib/modules/$KVER/." "$r/lib/modules/$KVER/"
	depmod -b "$r" "$KVER" || die "depmod failed"
	# trimmed: what nobody reads in a test VM
	rm -rf "$r"/usr/share/{doc,man,info,locale}/* "$r"/var/cache/apt/* "$r"/var/lib/apt/lists/* \
		"$r"/var/cache/debconf/*-old "$r"/var/log/*.log
	# no apt sources: nothing in the guest reaches the internet
	: >"$r/etc/apt/sources.list"
	rm -f "$r"/etc/apt/sources.list.d/*
	echo gpio-vm >"$r/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\tgpio-vm\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$r/etc/hosts"
	: >"$r/etc/resolv.conf"
	printf '/dev/vda / ext4 rw 0 1\n' >"$r/etc/fstab"
	# root without a password on the console (only the serial line of a test VM)
	sed -i 's/^root:[^:]*:/root::/' "$r/etc/shadow"
	systemd-machine-id-setup --root="$r" >/dev/null
	# a persistent journal: the scenarios read it across reboots
	mkdir -p "$r/var/log/journal"
	# the network: DHCP from QEMU's user-mode network
	printf '[Match]\nName=eth0 en*\n\n[Network]\nDHCP=ipv4\nLinkLocalAddressing=no\nIPv6AcceptRA=no\n' \
		>"$r/etc/systemd/network/50-gpio-vm.network"
	systemctl --root="$r" --quiet enable systemd-networkd.service
	# nothing on the serial console but the scenario; no timers that would reach the network
	systemctl --root="$r" --quiet mask serial-getty@ttyS0.service getty@tty1.service apt-daily.timer \
		apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer dpkg-db-backup.timer
	date -u +%FT%TZ >"$t/complete"
	mv "$t" "$1"
}

build_debian_initrd() { # DIR
	local b=$WORK/initrd a
	mkdir -p "$b"/{bin,dev,proc,sys,modules}
	cp /bin/busybox "$b/bin/busybox"
	for a in sh mount umount insmod switch_root sleep mkdir poweroff; do ln -s busybox "$b/bin/$a"; done
	install -m 0755 "$HERE/vm/debian/initrd-init" "$b/init"
	debian_modules "$b/modules.tmp" "${DEBIAN_INITRD_MODULES[@]}" | while read -r m; do
		mv "$b/modules.tmp/lib/modules/$KVER/$m" "$b/modules/"
		basename "$m" >>"$b/modules/order"
	done
	rm -rf "$b/modules.tmp"
	(cd "$b" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet -R 0:0) | gzip -9 >"$1/initrd.img.tmp"
	mv "$1/initrd.img.tmp" "$1/initrd.img"
}

# prepare_debian_guest: sets DEBIAN_DIR to the cached root filesystem and initramfs
# for KVER, building them when the recipe changed. Called under the cache lock.
prepare_debian_guest() {
	need_pkgs debootstrap e2fsprogs
	local key
	key=$(
		printf '%s\n' "$KVER" "$(cat "$KDIR/complete")" "$(debian_mirror)" "${DEBIAN_PACKAGES[@]}" \
			"${DEBIAN_MODULES[@]}" "${DEBIAN_INITRD_MODULES[@]}"
		declare -f debian_modules build_debian_rootfs build_debian_initrd
		cat "$HERE/vm/debian/initrd-init"
	) || die "no Debian bookworm archive in apt's sources (set GPIO_VM_MIRROR)"
	key=$(sha1sum <<<"$key" | cut -c1-12)
	DEBIAN_DIR=$CACHE/debian/$KVER-$key
	if [ ! -f "$DEBIAN_DIR/complete" ] || [ ! -f "$DEBIAN_DIR/initrd.img" ]; then
		rm -rf "$CACHE/debian" # one guest at a time: an old recipe's is ~200 MB
		mkdir -p "$CACHE/debian"
		build_debian_rootfs "$DEBIAN_DIR"
		build_debian_initrd "$DEBIAN_DIR"
		log "Debian guest ready: $(du -sh "$DEBIAN_DIR/root" | cut -f1) root filesystem in $DEBIAN_DIR"
	fi
}

# prepare_debian_modules NAME...: the modules of --module, each with its
# dependencies, from the linux-image .deb of KVER into $KDIR/debian-modules/NAME
# (downloaded once per kernel). Kept apart from the cached root filesystem: its
# recipe and key stay as they are. Called under the cache lock.
prepare_debian_modules() {
	local m d
	for m in "$@"; do
		d=$KDIR/debian-modules/$m
		[ -f "$d/complete" ] && continue
		log "adding module $m of $KVER to the cache (first use only)"
		rm -rf "$d" "$d.tmp"
		debian_modules "$d.tmp" "$m" >/dev/null
		: >"$d.tmp/complete"
		mv "$d.tmp" "$d"
	done
}

# stage_debian_modules DIR NAME...: those modules into the staged root DIR, and
# its module index made again (new files: the hard links into the cache are
# never written).
stage_debian_modules() {
	local r=$1 m
	shift
	for m in "$@"; do
		cp -a -n "$KDIR/debian-modules/$m/lib/modules/." "$r/lib/modules/"
	done
	rm -f "$r/lib/modules/$KVER"/modules.*.bin "$r/lib/modules/$KVER"/modules.{dep,alias,symbols,softdep,devname}
	depmod -b "$r" "$KVER" || die "depmod failed"
}

# stage_debian_root DIR: the cached root filesystem as hard links (cheap; the
# per-run files are new files, so the cache itself is never written) with the
# harness's units, helpers and the scenario.
stage_debian_root() {
	local r=$1 u h
	cp -al "$DEBIAN_DIR/root" "$r"
	install -d -m 0755 "$r/opt/vm" "$r/usr/local/lib/gpio-vm"
	install -m 0644 "$HERE/vm/lib.sh" "$HERE/vm/chip.sh" "$r/opt/vm/"
	install -m 0755 "$HERE/vm/helper" "$HERE/vm/debian/runner" "$HERE/vm/debian/make-chip" \
		"$HERE/vm/debian/reply" "$r/usr/local/lib/gpio-vm/"
	for h in chip offset press release level wait_level count_edges show_lines pass fail check on_host; do
		ln -s ../lib/gpio-vm/helper "$r/usr/local/bin/$h"
	done
	for u in gpio-vm-chip.service gpio-vm-scenario.service gpio-vm-reply.socket gpio-vm-reply@.service; do
		install -m 0644 "$HERE/vm/debian/$u" "$r/etc/systemd/system/$u"
	done
	mkdir -p "$r/etc/systemd/system/sysinit.target.wants" "$r/etc/systemd/system/multi-user.target.wants" \
		"$r/etc/systemd/system/sockets.target.wants"
	ln -s ../gpio-vm-chip.service "$r/etc/systemd/system/sysinit.target.wants/"
	ln -s ../gpio-vm-scenario.service "$r/etc/systemd/system/multi-user.target.wants/"
	ln -s ../gpio-vm-reply.socket "$r/etc/systemd/system/sockets.target.wants/"
}

# make_debian_image DIR IMAGE: an ext4 image of DIR with room to spare (sparse).
make_debian_image() {
	local mb
	mb=$(($(du -sm "$1" | cut -f1) + 768))
	truncate -s "${mb}M" "$2"
	timeout 300 mkfs.ext4 -q -F -L gpio-vm -d "$1" "$2" || die "mkfs.ext4 -d failed"
}
