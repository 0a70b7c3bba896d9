# shellcheck shell=bash
# Sourced by the benchmarks: runs a command held to a share of one CPU core (a Raspberry Pi's core is several
# times slower than a desktop's), in a cgroup made the way Deploy/lib/memcap.sh makes its memory groups, whichever
# way this machine offers:
#   systemd   systemd is PID 1: `systemd-run --scope -p CPUQuota=`
#   v2        a cgroup v2 group whose cpu controller we may use: a child group with cpu.max
#   v1        cgroup v1: a child group of this process's own cpu group, with cpu.cfs_quota_us
#
#   cpucap_detect              sets cpucap_kind to one of the above, or "" with cpucap_why saying why none
#   cpucap_make NAME PERCENT   makes the group (PERCENT of one core); sets cpucap_prefix: "${cpucap_prefix[@]}"
#                              CMD... runs CMD inside it, with CMD's PID (exec), so wait4 still sees its CPU time
#   cpucap_remove              removes the group (its processes must have ended)
# shellcheck disable=SC2034 # the variables are the caller's

cpucap_period_us=100000

cpucap_detect() {
    cpucap_kind='' cpucap_why='' cpucap_dir='' cpucap_parent=''
    if [[ $(cat /proc/1/comm 2>/dev/null) == systemd ]] && command -v systemd-run >/dev/null &&
        systemd-run --scope --quiet -p CPUQuota=50% true 2>/dev/null; then
        cpucap_kind=systemd
        return
    fi
    local v2_path v2_root
    v2_path=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
    for v2_root in /sys/fs/cgroup /sys/fs/cgroup/unified; do
        if [[ -n $v2_path && -f $v2_root/cgroup.controllers && -w $v2_root$v2_path ]] &&
            grep -qw cpu "$v2_root$v2_path/cgroup.subtree_control" 2>/dev/null; then
            cpucap_kind=v2 cpucap_parent=$v2_root$v2_path
            return
        fi
    done
    local v1_path v1_root
    v1_path=$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ { print $3 }' /proc/self/cgroup)
    for v1_root in /sys/fs/cgroup/cpu /sys/fs/cgroup/cpu,cpuacct; do
        if [[ -n $v1_path && -w $v1_root${v1_path%/} && -f $v1_root${v1_path%/}/cpu.cfs_quota_us ]]; then
            cpucap_kind=v1 cpucap_parent=$v1_root${v1_path%/}
            return
        fi
    done
    cpucap_why="no CPU cgroup can be made here: systemd is not PID 1 (or systemd-run --scope failed), no writable"
    cpucap_why+=" cgroup v2 group with the cpu controller, no writable cgroup v1 cpu group"
}

cpucap_make() {
    local name=$1 percent=$2
    local quota=$((cpucap_period_us * percent / 100))
    cpucap_dir=''
    case $cpucap_kind in
        systemd)
            cpucap_prefix=(systemd-run --scope --quiet "--unit=contactbox-bench-$$-$name" -p "CPUQuota=$percent%" --)
            ;;
        v2)
            cpucap_dir=$cpucap_parent/contactbox-bench-$$-$name
            mkdir -p "$cpucap_dir"
            echo "$quota $cpucap_period_us" >"$cpucap_dir/cpu.max"
            ;;
        v1)
            cpucap_dir=$cpucap_parent/contactbox-bench-$$-$name
            mkdir -p "$cpucap_dir"
            echo "$cpucap_period_us" >"$cpucap_dir/cpu.cfs_period_us"
            echo "$quota" >"$cpucap_dir/cpu.cfs_quota_us"
            ;;
        *) echo "cpucap_make: no CPU cgroup here: $cpucap_why" >&2 && return 1 ;;
    esac
    if [[ -n $cpucap_dir ]]; then
        # shellcheck disable=SC2016 # $0, $$ and $@ are the inner shell's
        cpucap_prefix=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cpucap_dir")
    fi
}

cpucap_remove() {
    [[ -n $cpucap_dir && -d $cpucap_dir ]] && rmdir "$cpucap_dir" 2>/dev/null
    cpucap_dir=
    return 0
}
