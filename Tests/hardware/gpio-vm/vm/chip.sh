# shellcheck shell=sh
# chip.sh - creates the simulated GPIO chip; sourced by both kinds of guest:
# the small guest's /init and the Debian guest's gpio-vm-chip.service.
#
# gpio_vm_make_chip: loads gpio-sim, creates one bank with $GPIO_VM_NLINES lines
# named $GPIO_VM_LINES and labelled $GPIO_VM_LABEL, brings it live, waits for
# /dev/gpiochipN and sets every line to pull-up (button released). Sets and
# exports GPIO_VM_CHIP and GPIO_VM_SYSFS. Reports problems with the caller's
# setup_fail MSG, which clears SETUP_OK.
gpio_vm_make_chip() {
	modprobe gpio-sim || setup_fail "modprobe gpio-sim"
	# systemd mounts configfs itself; the small guest has no one else to do it
	if [ "$SETUP_OK" = 1 ] && ! grep -q ' /sys/kernel/config ' /proc/mounts; then
		mount -t configfs configfs /sys/kernel/config || setup_fail "mount configfs"
	fi
	[ "$SETUP_OK" = 1 ] || return 0
	_gpio_vm_d=/sys/kernel/config/gpio-sim/gpio-vm
	{
		mkdir "$_gpio_vm_d" "$_gpio_vm_d/bank0" &&
			echo "$GPIO_VM_NLINES" >"$_gpio_vm_d/bank0/num_lines" &&
			echo "$GPIO_VM_LABEL" >"$_gpio_vm_d/bank0/label"
	} || setup_fail "gpio-sim configfs: cannot create the chip"
	_gpio_vm_i=0
	for _gpio_vm_n in $GPIO_VM_LINES; do
		if [ "$_gpio_vm_n" != - ]; then
			{ mkdir "$_gpio_vm_d/bank0/line$_gpio_vm_i" && echo "$_gpio_vm_n" >"$_gpio_vm_d/bank0/line$_gpio_vm_i/name"; } ||
				setup_fail "gpio-sim configfs: cannot name line $_gpio_vm_i $_gpio_vm_n"
		fi
		_gpio_vm_i=$((_gpio_vm_i + 1))
	done
	echo 1 >"$_gpio_vm_d/live" || setup_fail "gpio-sim: cannot bring the chip live"
	[ "$SETUP_OK" = 1 ] || return 0
	GPIO_VM_CHIP=$(cat "$_gpio_vm_d/bank0/chip_name")
	GPIO_VM_SYSFS=/sys/devices/platform/$(cat "$_gpio_vm_d/dev_name")/$GPIO_VM_CHIP
	export GPIO_VM_CHIP GPIO_VM_SYSFS
	_gpio_vm_i=0
	while [ ! -c "/dev/$GPIO_VM_CHIP" ] && [ $_gpio_vm_i -lt 100 ]; do
		sleep 0.02
		_gpio_vm_i=$((_gpio_vm_i + 1))
	done
	[ -c "/dev/$GPIO_VM_CHIP" ] || setup_fail "/dev/$GPIO_VM_CHIP did not appear"
	_gpio_vm_i=0
	while [ $_gpio_vm_i -lt "$GPIO_VM_NLINES" ]; do
		echo pull-up >"$GPIO_VM_SYSFS/sim_gpio$_gpio_vm_i/pull" || setup_fail "pull-up on line $_gpio_vm_i"
		_gpio_vm_i=$((_gpio_vm_i + 1))
	done
}
