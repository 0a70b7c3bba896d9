#!/usr/bin/env python3
"""The benchmarks' one memory sampler (Docs/memory.md, "The measures").

    footprint.py run OUT CMD [ARG...]   runs CMD, samples it until it exits, writes the peaks to OUT; exits with CMD's status
    footprint.py watch PID OUT          samples a running process until it exits or this gets SIGTERM, then writes OUT;
                                        SIGUSR1 appends the peaks since the previous SIGUSR1 to OUT.window and starts anew
    footprint.py now PID                one sample, on standard output

Footprint is the memory the process holds that the kernel cannot reclaim (no swap on the box): its anonymous pages
(heap, stacks, copy-on-write relocated data) and its private dirty pages (those plus dirty pages of shared file
mappings only it maps, such as SQLite's -shm). From /proc/PID/smaps_rollup:

    footprint = Private_Dirty + max(0, Anonymous - Private_Dirty)

An anonymous page is dirty from its first write, so every anonymous page mapped by this process alone is already in
Private_Dirty and is not counted twice; the second term counts anonymous pages outside Private_Dirty, which only a
fork (copy-on-write sharing) makes, and is 0 for ContactBox (it starts children with posix_spawn and exec).

Sampled every FOOTPRINT_INTERVAL_MS milliseconds (10 by default) from the process start (`run`) or from the call
(`watch`); a peak shorter than the interval can be missed. Peak RSS is the kernel's own high-water mark, VmHWM, at
the last sample (after an exec, of the new image). Not wait4's ru_maxrss: it also counts the memory of the parent
the child was forked or vforked from (here Python's, 14 MB). PSS is the peak of the samples.

OUT holds shell assignments: fp_kb anon_kb dirty_kb pss_kb hwm_kb wall_s samples majflt (`run`: the major page
faults, pages read from disk again, which a tight cap multiplies) cpu_s (`run`: the process's user + system CPU
seconds, from wait4, a figure that another process's load hardly moves) run_status; `watch` creates
OUT.started once it has its first sample.
"""
import os
import signal
import sys
import time

INTERVAL = int(os.environ.get("FOOTPRINT_INTERVAL_MS", "10")) / 1000


def tick(start, count):
    """Sleeps until the next multiple of the interval after `start`: a steady rate, whatever a sample costs."""
    time.sleep(max(0.0, start + count * INTERVAL - time.monotonic()))


def sample(pid):
    """(footprint, anonymous, private dirty, pss, rss, vmhwm) in KiB, or None once the process is gone."""
    fields = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                parts = line.split()
                if len(parts) == 3 and parts[2] == "kB":
                    fields[parts[0].rstrip(":")] = int(parts[1])
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    fields["VmHWM"] = int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    if "Private_Dirty" not in fields:  # a zombie: no memory left to read
        return None
    dirty, anon = fields["Private_Dirty"], fields.get("Anonymous", 0)
    return (dirty + max(0, anon - dirty), anon, dirty, fields.get("Pss", 0), fields.get("Rss", 0),
            fields.get("VmHWM", 0))


class Peaks:
    def __init__(self):
        self.fp = self.anon = self.dirty = self.pss = self.hwm = self.samples = self.majflt = 0
        self.cpu = 0.0

    def add(self, s):
        if s is None:
            return
        self.samples += 1
        if s[0] > self.fp:
            self.fp, self.anon, self.dirty = s[0], s[1], s[2]
        self.pss = max(self.pss, s[3])
        self.hwm = max(self.hwm, s[5])

    def text(self, wall, status):
        return (f"fp_kb={self.fp} anon_kb={self.anon} dirty_kb={self.dirty} pss_kb={self.pss} hwm_kb={self.hwm} "
                f"wall_s={wall:.2f} samples={self.samples} majflt={self.majflt} cpu_s={self.cpu:.2f} run_status={status}\n")


def run(out, command):
    start = time.monotonic()
    pid = os.posix_spawnp(command[0], command, os.environ)
    peaks, ticks = Peaks(), 0
    while True:
        peaks.add(sample(pid))
        ticks += 1
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        tick(start, ticks)
    wall = time.monotonic() - start
    peaks.majflt = usage.ru_majflt
    peaks.cpu = usage.ru_utime + usage.ru_stime
    code = os.waitstatus_to_exitcode(status)
    code = 128 - code if code < 0 else code  # killed by a signal: as a shell reports it
    with open(out, "w") as f:
        f.write(peaks.text(wall, code))
    return code


def watch(pid, out):
    start = time.monotonic()
    peaks, window = Peaks(), Peaks()
    flags = {"stop": False, "report": False}
    signal.signal(signal.SIGTERM, lambda *_: flags.update(stop=True))
    signal.signal(signal.SIGUSR1, lambda *_: flags.update(report=True))
    while not flags["stop"]:
        s = sample(pid)
        if s is None:
            break
        peaks.add(s)
        window.add(s)
        if peaks.samples == 1:
            open(out + ".started", "w").close()
        if flags["report"]:
            flags["report"] = False
            with open(out + ".window", "a") as f:
                f.write(window.text(time.monotonic() - start, "running"))
            window = Peaks()
        tick(start, peaks.samples)
    with open(out, "w") as f:
        f.write(peaks.text(time.monotonic() - start, "running" if flags["stop"] else "exited"))
    return 0


def now(pid):
    s = sample(pid)
    if s is None:
        sys.exit(f"footprint.py: no process {pid}")
    print(f"fp_kb={s[0]} anon_kb={s[1]} dirty_kb={s[2]} pss_kb={s[3]} rss_kb={s[4]} hwm_kb={s[5]}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] in (["run"], ["watch"]):
        # A page of a file that is dirty in the page cache counts as Private_Dirty in every private mapping of it: a
        # binary built or copied moments before, not yet written back, added its own code to the footprint
        # (Docs/memory.md, "The measures").
        # Once before sampling starts (not for each `now`, which a benchmark may call in a loop).
        os.sync()
    if len(sys.argv) >= 4 and sys.argv[1] == "run":
        sys.exit(run(sys.argv[2], sys.argv[3:]))
    elif len(sys.argv) == 4 and sys.argv[1] == "watch":
        sys.exit(watch(int(sys.argv[2]), sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "now":
        sys.exit(now(int(sys.argv[2])))
    sys.exit(__doc__)
