#!/usr/bin/env python3
"""Where a daemon's writes go, from an strace of it: Deploy/bench/writes.sh.

    writes_where.py STRACE STORE PASSES

STRACE is `strace -f -y -xx -s 4 -e trace=write,pwrite64,pwritev,pwritev2,ftruncate,fsync,fdatasync` output (a
write's file named by -y, its first 4 bytes in hex). STORE is the store (a SQLite database in WAL mode); its pages
are named by table or index through the `dbstat` table of the sqlite3 command-line tool. PASSES divides the figures.

Prints, per pass: the bytes and calls written to each file (the store, its -wal, the scratch databases of a run's
listing, which SQLite deletes, anything else); the WAL frames (a 24-byte header then a page: the header's first 4
bytes are the page number) by table, and the pages a checkpoint copies into the store (at (page - 1) * page size)
by table; the fsyncs. The -shm index is mapped, not written: it is not in an strace.
"""
import collections
import re
import subprocess
import sys

CALL = re.compile(r'^(?:\[pid\s+\d+\]\s+|\d+\s+)?(\w+)\((\d+)<([^>]*)>, (.*)\) += (-?\d+)')


def table_of_pages(store):
    try:
        out = subprocess.run(
            ["sqlite3", "-readonly", store, "SELECT pageno, name FROM dbstat; PRAGMA page_size;"],
            capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"(no dbstat: {error})")
        return {}, 4096
    pages = {}
    lines = out.splitlines()
    for line in lines[:-1]:
        number, _, name = line.partition("|")
        pages[int(number)] = name
    return pages, int(lines[-1])


def kind(path, store):
    if path == store:
        return "store"
    if path == store + "-wal":
        return "store-wal"
    if path == store + "-journal":
        return "store-journal"
    if "etilqs_" in path or path.endswith("(deleted)"):
        return "scratch (listing)"
    return path


def main():
    strace_path, store, passes = sys.argv[1], sys.argv[2], int(sys.argv[3])
    pages, page_size = table_of_pages(store)
    written = collections.Counter()
    calls = collections.Counter()
    syncs = collections.Counter()
    frames = collections.Counter()
    copied = collections.Counter()
    truncations = 0
    for line in open(strace_path, errors="replace"):
        match = CALL.match(line)
        if not match:
            continue
        call, _, path, args, result = match.groups()
        # -xx writes the names in hex too
        path = re.sub(r"\\x([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), path)
        if not path.startswith("/"):
            continue  # a pipe, a socket, an eventfd: nothing stored
        where = kind(path, store)
        if call in ("fsync", "fdatasync"):
            syncs[where] += 1
            continue
        if call == "ftruncate":
            truncations += 1
            continue
        size = int(result)
        if size <= 0:
            continue
        written[where] += size
        calls[where] += 1
        offset = args.rsplit(", ", 1)[-1]
        if where == "store-wal" and size == 24:
            head = re.match(r'"((?:\\x[0-9a-f]{2}){4})', args)
            if head:
                number = int(head.group(1).replace("\\x", ""), 16)
                frames[pages.get(number, f"page {number} (not in the store now)")] += 1
        elif where == "store" and call == "pwrite64" and offset.isdigit():
            number = int(offset) // page_size + 1
            for page in range(number, number + max(1, size // page_size)):
                copied[pages.get(page, f"page {page} (not in the store now)")] += 1

    def per(value):
        return f"{value / passes:.1f}"

    print(f"per pass (an average over {passes}), from strace; the page size is {page_size} bytes")
    print(f"  {'file':<44} {'bytes':>10} {'writes':>7} {'fsyncs':>7}")
    for where in sorted(set(written) | set(syncs), key=lambda w: -written[w]):
        print(f"  {where:<44} {per(written[where]):>10} {per(calls[where]):>7} {per(syncs[where]):>7}")
    print(f"  ftruncate calls: {per(truncations)}")
    print(f"  WAL frames by table or index ({page_size + 24} bytes each):")
    for name, count in frames.most_common():
        print(f"    {name:<42} {per(count):>10}")
    print("  pages a checkpoint copied into the store, by table or index:")
    for name, count in copied.most_common():
        print(f"    {name:<42} {per(count):>10}")
    if not copied:
        print("    (none: no checkpoint in these passes; SQLite checkpoints after a commit that takes the WAL past"
              " 1,000 frames)")


if __name__ == "__main__":
    main()
