#!/usr/bin/env python3
"""Times the store's search and trash pages on a store, through the system's SQLite as the daemon uses it.

    python3 search.py STORE [--repeat 30]

Runs the statements of `ContactStore.contacts(after:limit:search:)` and `ContactStore.trash(after:limit:)` (copied
here: keep them in step with ContactStore+Listing.swift and ContactStore+Trash.swift) with the store's page cache
(PRAGMA cache_size=-512), and prints their query plans and, per search, the milliseconds of a page: the median, the
95th percentile and the largest over the runs, of the first page and of the pages after it (the whole result,
paged by cursor). Prints only: the budget (50 ms at the 95th percentile) is checked by the HTTP benchmark.
"""
import argparse
import sqlite3
import statistics
import time

COLUMNS = ("id, uid, CASE WHEN text_id IS NULL AND length(vcard) <= 65536 THEN vcard END, hash, display_name,"
           " created_at, changed_at, change_seq, deleted, text_id")


def search_sql(cursor, digits):
    conditions = ["deleted = 0"]
    if cursor:
        conditions.append("display_name COLLATE NOCASE >= ? AND (display_name COLLATE NOCASE > ? OR id > ?)")
    match = "instr(search_text, ?) > 0"
    if digits:
        match += " OR instr(search_phones, ?) > 0"
    conditions.append("(" + match + ")")
    return (f"SELECT {COLUMNS} FROM contacts WHERE {' AND '.join(conditions)}"
            " ORDER BY display_name COLLATE NOCASE, id LIMIT ?")


TRASH_SQL = """
SELECT c.id, c.uid, c.display_name, c.changed_at, h.id, h.run_id, cause_run.kind, cause_run.note,
    coalesce(cause_run_remote.name, cause_row_remote.name), h.reason
FROM contacts AS c
JOIN history AS h ON h.id = (
    SELECT id FROM history WHERE uid = c.uid AND kind = 'deleted' ORDER BY id DESC LIMIT 1)
LEFT JOIN sync_runs AS cause_run ON cause_run.id = h.run_id
LEFT JOIN remotes AS cause_run_remote ON cause_run_remote.id = cause_run.remote_id
LEFT JOIN remotes AS cause_row_remote ON cause_row_remote.id = h.remote_id
WHERE c.deleted = 1 AND c.changed_at >= (SELECT min(recorded_at) FROM history) {cursor}
ORDER BY c.changed_at DESC, c.id DESC LIMIT ?
"""


def query(words):
    """The query as SearchQuery makes it: (text, digits or None)."""
    trimmed = words.strip()
    number = "".join(c for c in trimmed if not c.isspace() and c not in "-.()/")
    if number.startswith("+"):
        number = number[1:]
    digits = number.lstrip("0")
    ok = number != "" and all("0" <= c <= "9" for c in number) and len(digits) >= 3
    return trimmed.lower(), digits if ok else None


def search_page(db, words, cursor):
    text, digits = query(words)
    args = []
    if cursor:
        args += [cursor[0], cursor[0], cursor[1]]
    args.append(text)
    if digits:
        args.append(digits)
    args.append(100)
    return db.execute(search_sql(cursor, digits), args).fetchall()


def trash_page(db, cursor):
    sql = TRASH_SQL.format(cursor="AND c.changed_at <= ? AND (c.changed_at < ? OR c.id < ?)" if cursor else "")
    args = [cursor[0], cursor[0], cursor[1]] if cursor else []
    return db.execute(sql, args + [100]).fetchall()


CPU = []


def timed(call):
    start, cpu = time.perf_counter(), time.process_time()
    rows = call()
    CPU.append((time.process_time() - cpu) * 1000)
    return (time.perf_counter() - start) * 1000, rows


def summary(times):
    if not times:
        return "-"
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return f"median {statistics.median(ordered):6.2f}  p95 {p95:6.2f}  max {ordered[-1]:6.2f}  ({len(ordered)} pages)"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("store")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--search", action="append")
    args = parser.parse_args()
    db = sqlite3.connect(args.store)
    db.execute("PRAGMA cache_size=-512")
    live = db.execute("SELECT count(*) FROM contacts WHERE deleted = 0").fetchone()[0]
    dead = db.execute("SELECT count(*) FROM contacts WHERE deleted = 1").fetchone()[0]
    history = db.execute("SELECT count(*) FROM history").fetchone()[0]
    print(f"store: {live} live contacts, {dead} tombstones, {history} history rows; SQLite {sqlite3.sqlite_version}")
    for label, sql, params in [
        ("search plan", search_sql(True, True), ["a", "a", 1, "a", "123", 100]),
        ("trash plan", TRASH_SQL.format(cursor="AND c.changed_at <= ? AND (c.changed_at < ? OR c.id < ?)"),
         [0, 0, 0, 100]),
    ]:
        print(label + ":")
        for row in db.execute("EXPLAIN QUERY PLAN " + sql, params):
            print("   ", row[3])
    searches = args.search or ["a", "müller", "stadtwerke", "@example", "zz-no-such-term", "98765432", "4711", "0 3 0"]
    print("milliseconds a page (limit 100):")
    for words in searches:
        first, later, found = [], [], 0
        for run in range(args.repeat):
            cursor, pages = None, 0
            while True:
                ms, rows = timed(lambda: search_page(db, words, cursor))
                (first if pages == 0 else later).append(ms)
                pages += 1
                if len(rows) < 100 or run > 0 and pages >= 5:
                    found = found if run else (pages - 1) * 100 + len(rows)
                    break
                cursor = (rows[-1][4], rows[-1][0])
        cpu = sorted(CPU)
        CPU.clear()
        print(f"  search {words!r:20} finds {found:6}: first {summary(first)}  (CPU: median {statistics.median(cpu):.2f}"
              f" max {cpu[-1]:.2f})")
        print(f"  {'':45}later {summary(later)}")
    CPU.clear()
    first, later, total = [], [], 0
    for run in range(args.repeat):
        cursor, pages = None, 0
        while True:
            ms, rows = timed(lambda: trash_page(db, cursor))
            (first if pages == 0 else later).append(ms)
            pages += 1
            total += len(rows) if run == 0 else 0
            if len(rows) < 100:
                break
            cursor = (rows[-1][3], rows[-1][0])
    print(f"  trash ({total} entries): first {summary(first)}  (CPU: max {max(CPU):.2f})")
    print(f"  {'':21}later {summary(later)}")


if __name__ == "__main__":
    main()
