#!/usr/bin/env python3
"""Fold vCard lines the way ContactBox writes them, so canonical.vcf is exact.

    python3 fold.py canonical.vcf > x && mv x canonical.vcf   # (re)fold in place
    python3 fold.py --check canonical.vcf                     # exit 1 unless exact

Input may be CRLF or LF, folded or not: it is unfolded first, then folded.

Rule (RFC 6350 3.2): CRLF line ends; a physical line is at most 75 octets, CRLF
not counted; a continuation line starts with one space, which counts in the 75;
a fold never splits a UTF-8 sequence, so it may come up to three octets early.
"""
import re
import sys

LIMIT = 75


def fold(line: bytes) -> bytes:
    out, room = [], LIMIT
    while len(line) > room:
        cut = room
        while line[cut] & 0xC0 == 0x80:  # continuation byte: back off to a boundary
            cut -= 1
        out.append(line[:cut])
        line, room = line[cut:], LIMIT - 1
    out.append(line)
    return b"\r\n ".join(out) + b"\r\n"


def unfold(data: bytes) -> list[bytes]:
    # Accepts CRLF or LF, so a line added by hand may be left long and unfolded.
    return re.sub(rb"\r?\n ", b"", data).replace(b"\r\n", b"\n").split(b"\n")


def main(argv: list[str]) -> int:
    check = argv[:1] == ["--check"]
    with open(argv[-1], "rb") as f:
        data = f.read()
    folded = b"".join(fold(line) for line in unfold(data) if line)
    if check:
        return 0 if folded == data else 1
    sys.stdout.buffer.write(folded)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
