#!/usr/bin/env python3
"""Write edited versions of the contacts in a .vcf file, for `contactbox import --update` in the benchmarks.

    python3 edit_contacts.py IN.vcf OUT.vcf ROUND [--limit N]

Each distinct UID of IN.vcf (the first card of a UID; gen_contacts.py repeats about 2% of its cards) is written
once, with `NOTE:edit ROUND` added before END:VCARD: one changed property, as a person's edit or a phone's sync
would make, the rest of the card (a photo too) as it was. With --limit, only the first N. Streams card by card;
prints how many cards it wrote.
"""
import argparse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source")
    parser.add_argument("out")
    parser.add_argument("round", type=int)
    parser.add_argument("--limit", type=int)
    args = parser.parse_args()
    seen: set[bytes] = set()
    written = 0
    card: list[bytes] = []
    uid = b""
    with open(args.source, "rb") as source, open(args.out, "wb") as out:
        for line in source:
            if args.limit is not None and written >= args.limit:
                break
            if line.startswith(b"UID:"):
                uid = line.rstrip(b"\r\n")
            if line.startswith(b"END:VCARD"):
                if uid not in seen:
                    seen.add(uid)
                    out.write(b"".join(card) + f"NOTE:edit {args.round}\r\n".encode() + line)
                    written += 1
                card, uid = [], b""
                continue
            card.append(line)
    print(written)


if __name__ == "__main__":
    main()
