# shellcheck shell=bash
# Sourced by the benchmarks: runs a command inside a memory cgroup with a hard limit, as the systemd unit's
# MemoryMax= would, whichever way this machine offers:
#   systemd   systemd is PID 1: `systemd-run --scope -p MemoryMax=` (cgroup v2 or v1, systemd does the rest)
#   v2        a cgroup v2 hierarchy whose memory controller we may use: a child group with memory.max
#   v1        cgroup v1 (/sys/fs/cgroup/memory): a child group of this process's own memory group, with
#             memory.limit_in_bytes (and memory.memsw.limit_in_bytes where swap is accounted)
#
#   memcap_detect            sets memcap_kind to one of the above, or "" with memcap_why saying why none
#   memcap_make NAME KIB [HIGH_KIB]   makes the group; sets memcap_prefix: "${memcap_prefix[@]}" CMD... runs
#                            CMD inside it, with CMD's PID (exec). HIGH_KIB: also the unit's MemoryHigh= (throttled
#                            and reclaimed above it, never killed there); cgroup v1 has none: memcap_high says so
#   memcap_events            sets memcap_oom_kills (processes the kernel killed in the group), memcap_limit_hits
#                            (times usage reached the limit) and memcap_peak_kb (the group's peak usage, page cache
#                            included; "?" where the kernel does not say)
#   memcap_remove            removes the group (its processes must have ended)
# The page cache a process reads or writes is charged to its group and reclaimed within the limit.
# shellcheck disable=SC2034 # the variables are the caller's

memcap_detect() {
    memcap_kind='' memcap_why='' memcap_dir='' memcap_unit=''
    if [[ $(cat /proc/1/comm 2>/dev/null) == systemd ]] && command -v systemd-run >/dev/null &&
        systemd-run --scope --quiet -p MemoryMax=64M true 2>/dev/null; then
        memcap_kind=systemd
        return
    fi
    local v2_path v2_root
    v2_path=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
    for v2_root in /sys/fs/cgroup /sys/fs/cgroup/unified; do
        if [[ -n $v2_path && -f $v2_root/cgroup.controllers && -w $v2_root$v2_path ]] &&
            grep -qw memory "$v2_root$v2_path/cgroup.subtree_control" 2>/dev/null; then
            memcap_kind=v2 memcap_parent=$v2_root$v2_path
            return
        fi
    done
    local v1_path
    v1_path=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
    if [[ -n $v1_path && -w /sys/fs/cgroup/memory${v1_path%/} ]]; then
        memcap_kind=v1 memcap_parent=/sys/fs/cgroup/memory${v1_path%/}
        return
    fi
    memcap_why="no memory cgroup can be made here: systemd is not PID 1 (or systemd-run --scope failed), no writable"
    memcap_why+=" cgroup v2 group with the memory controller, no writable cgroup v1 memory group"
}

memcap_make() {
    local name=$1 kib=$2 high=${3:-}
    memcap_high=${high:+"MemoryHigh=${high}K"}
    case $memcap_kind in
        systemd)
            memcap_unit="contactbox-bench-$$-$name"
            memcap_prefix=(systemd-run --scope --quiet "--unit=$memcap_unit" -p "MemoryMax=${kib}K"
                ${high:+-p "MemoryHigh=${high}K"} -p MemorySwapMax=0 --)
            ;;
        v2)
            memcap_dir=$memcap_parent/contactbox-bench-$$-$name
            mkdir -p "$memcap_dir"
            echo "$((kib * 1024))" >"$memcap_dir/memory.max"
            [[ -z $high ]] || echo "$((high * 1024))" >"$memcap_dir/memory.high"
            echo 0 >"$memcap_dir/memory.swap.max" 2>/dev/null || true
            ;;
        v1)
            memcap_dir=$memcap_parent/contactbox-bench-$$-$name
            mkdir -p "$memcap_dir"
            # memsw (memory + swap) must stay >= the memory limit: lower the limit first, then raise both.
            echo "$((kib * 1024))" >"$memcap_dir/memory.limit_in_bytes" 2>/dev/null || true
            if [[ -w $memcap_dir/memory.memsw.limit_in_bytes ]]; then
                echo "$((kib * 1024))" >"$memcap_dir/memory.memsw.limit_in_bytes"
            fi
            echo "$((kib * 1024))" >"$memcap_dir/memory.limit_in_bytes"
            echo 0 >"$memcap_dir/memory.max_usage_in_bytes" 2>/dev/null || true
            [[ -z $high ]] || memcap_high="no MemoryHigh (cgroup v1 has no memory.high): only the ${kib} KiB limit"
            ;;
        *) echo "memcap_make: no memory cgroup here: $memcap_why" >&2 && return 1 ;;
    esac
    if [[ -n $memcap_dir ]]; then
        # shellcheck disable=SC2016 # $0, $$ and $@ are the inner shell's
        memcap_prefix=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$memcap_dir")
    fi
}

memcap_events() {
    memcap_oom_kills='?' memcap_limit_hits='?' memcap_peak_kb='?'
    case $memcap_kind in
        v1)
            memcap_oom_kills=$(awk '$1 == "oom_kill" { print $2 }' "$memcap_dir/memory.oom_control")
            memcap_limit_hits=$(cat "$memcap_dir/memory.failcnt")
            memcap_peak_kb=$(($(cat "$memcap_dir/memory.max_usage_in_bytes") / 1024))
            ;;
        v2)
            memcap_oom_kills=$(awk '$1 == "oom_kill" { print $2 }' "$memcap_dir/memory.events")
            memcap_limit_hits=$(awk '$1 == "max" { print $2 }' "$memcap_dir/memory.events")
            [[ -r $memcap_dir/memory.peak ]] && memcap_peak_kb=$(($(cat "$memcap_dir/memory.peak") / 1024))
            ;;
        systemd)
            # The scope goes away with its process; an OOM kill shows in the exit status (137).
            ;;
    esac
    [[ -n $memcap_oom_kills ]] || memcap_oom_kills=0
}

memcap_remove() {
    [[ -n $memcap_dir && -d $memcap_dir ]] && rmdir "$memcap_dir" 2>/dev/null
    memcap_dir=
    return 0
}

# memcap_drop_caches: writes back and drops the page cache, so a run starts cold; sets memcap_cold to say whether it
# could ("dropped" or why not).
memcap_drop_caches() {
    sync
    if echo 3 2>/dev/null >/proc/sys/vm/drop_caches; then
        memcap_cold=dropped
    else
        memcap_cold="not dropped (/proc/sys/vm/drop_caches is not writable here)"
    fi
}
