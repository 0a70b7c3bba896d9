#!/usr/bin/env python3
"""Write N realistic, invented contacts to a .vcf file for the benchmarks.

    python3 gen_contacts.py N OUT.vcf [--seed 1] [--photos 0.05]
    python3 gen_contacts.py N OUT.vcf --photo-bytes 1400000 [--seed 1] [--photo-seed S]
    python3 gen_contacts.py N OUT.vcf --photos 0.1 --photo-size 20000-50000 --copies 0

Deterministic for a given seed. Cards are streamed to disk one at a time, so
memory stays small whatever N is. About 5% (--photos) carry a JPEG photo of 8-40 KB base64
(a tiny valid JPEG padded with a comment segment); about 2% are exact copies of
an earlier card, as a re-exported address book would hold.

With --photo-bytes B (Deploy/bench/photos.sh), every card carries a phone's photo of B
bytes (a valid JPEG padded with comment segments of random bytes), as a 3.0
`PHOTO;ENCODING=b;TYPE=JPEG:` value folded at 75 octets, and at least one phone and one
email; no card is a copy. The photos' bytes come from a generator of their own (seeded by
--photo-seed, else by --seed), so the same --seed gives the same names and UIDs whatever
the photos' size, and another --photo-seed gives the same contacts with new photos.

With --photo-size LOW-HIGH, a card's photo (--photos of them) is a JPEG of LOW to HIGH bytes instead (at most
65,000: one comment segment); --copies is the share of exact copies (0: every UID once).
"""
import argparse
import base64
import random
import uuid

GIVEN = ["Anna", "Jonas", "Zoë", "Amélie", "Søren", "Łukasz", "Ayşe", "Björn", "Chiara", "Siobhán",
         "Mehmet", "Νίκος", "Σοφία", "Иван", "Ольга", "太郎", "花子", "Linh", "Priya", "Chidinma",
         "José", "Ana Sofía", "François", "Jürgen", "Ingrid", "Kenji", "Fatima", "Oğuz", "Mia", "Tom"]
FAMILY = ["Müller", "Weber", "Dubois", "Østergaard", "Zieliński", "Öztürk", "Åkesson", "Rossi", "Brennan",
          "Çelik", "Παπαδόπουλος", "Иванова", "山田", "Nguyen", "Raman", "Okafor", "Gutiérrez", "Lefèvre",
          "Hofbauer", "Kovač", "Watanabe", "Haddad", "Smith", "García", "Novak", "Lindqvist"]
CITIES = [("München", "80331", "Germany"), ("Lyon", "69002", "France"), ("København", "2200", "Denmark"),
          ("Kraków", "31-042", "Polska"), ("İstanbul", "34728", "Türkiye"), ("Αθήνα", "105 63", "Ελλάδα"),
          ("東京都", "100-0005", "日本"), ("Bristol", "BS6 6AH", "United Kingdom"), ("Madrid", "28028", "España")]
STREETS = ["Hauptstraße", "rue des Lilas", "Nørrebrogade", "ul. Długa", "Bağdat Caddesi", "Οδός Ερμού",
           "Elm Grove", "Calle Mayor", "Birkenweg"]
ORGS = [("Stadtwerke Nord", "Kundenservice"), ("Atelier Lumière", "Restauration"), ("Harbor Dental", "Praxis"),
        ("株式会社サンプル", "営業部"), ("Hafenlogistik GmbH", "Disposition"), ("Riverside Clinic", "Paediatrics")]
TITLES = ["Engineer", "Ärztin", "Teacher", "Installateur", "課長", "Manager", "Nurse", "Librarian"]
CATEGORIES = ["Family", "Friends", "Work", "Doctors", "Schule", "Nachbarn", "Sport", "Handwerker"]
LABELS = ["_$!<Other>!$_", "_$!<HomePage>!$_", "Notdienst", "Büro", "Gym", "_$!<Anniversary>!$_"]
NOTES = ["Gate code 4711\\, second door on the left.", "Allergic to hazelnuts.",
         "Schlüssel liegt beim Nachbarn.\\nBlumen gießen dienstags.", "次回は京都で会食。",
         "Call after 18:00\\; prefers text messages 📱.", "Met at the school fair 2023.\\nKids: Lydia\\, Jörn."]
# A 16x16 baseline JPEG; a photo is this plus a comment segment (FF FE) of filler.
TINY_JPEG = base64.b64decode(
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABQODxIPDRQSEBIXFRQYHjIhHhwcHj0sLiQySUBMS0dARkVQWnNiUFVtVkVGZIhlbXd7"
    "gYKBTmCNl4x9lnN+gXz/2wBDARUXFx4aHjshITt8U0ZTfHx8fHx8fHx8fHx8fHx8fHx8fHx8fHx8fHx8fHx8fHx8fHx8fHx8fHx8"
    "fHx8fHx8fHz/wAARCAAQABADASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAwT/xAAWEAADAAAAAAAAAAAAAAAAAAAAAQL/"
    "xAAVAQEBAAAAAAAAAAAAAAAAAAACA//EABYRAAMAAAAAAAAAAAAAAAAAAAACA//aAAwDAQACEQMRAD8AWWNLJZY0si0RtU//2Q==")


def fold(line: str) -> bytes:
    """RFC 6350 folding at 75 octets without splitting a UTF-8 sequence."""
    data, out, start, room = line.encode(), [], 0, 75
    while len(data) - start > room:  # by offset: a photo's line of megabytes is not copied at every fold
        cut = start + room
        while data[cut] & 0xC0 == 0x80:
            cut -= 1
        out.append(data[start:cut])
        start, room = cut, 74
    out.append(data[start:])
    return b"\r\n ".join(out) + b"\r\n"


def photo(rng: random.Random, size_range: tuple[int, int] | None = None) -> str:
    if size_range:  # JPEG bytes
        size = rng.randint(*size_range) - len(TINY_JPEG) - 4
    else:
        size = rng.randint(8_000, 40_000) * 3 // 4 - len(TINY_JPEG)  # raw bytes for 8-40 KB of base64
    size = max(size, 16)
    comment = b"\xff\xfe" + (size + 2).to_bytes(2, "big") + rng.randbytes(size)
    after_app0 = 4 + int.from_bytes(TINY_JPEG[4:6], "big")  # JFIF wants APP0 right after SOI
    return base64.b64encode(TINY_JPEG[:after_app0] + comment + TINY_JPEG[after_app0:]).decode()


def big_photo(rng: random.Random, size: int) -> str:
    """A JPEG of about `size` bytes (within 4): the tiny one with comment segments (at most 64 KiB each) of random
    bytes after its APP0, base64."""
    after_app0 = 4 + int.from_bytes(TINY_JPEG[4:6], "big")
    segments, left = [TINY_JPEG[:after_app0]], size - len(TINY_JPEG)
    while left > 4:
        length = min(65535, left - 2)  # the length field counts itself
        segments.append(b"\xff\xfe" + length.to_bytes(2, "big") + rng.randbytes(length - 2))
        left -= length + 2
    segments.append(TINY_JPEG[after_app0:])
    return base64.b64encode(b"".join(segments)).decode()


def card(rng: random.Random, photos: float = 0.05, photo_bytes: int = 0,
         photo_rng: random.Random | None = None, photo_size: tuple[int, int] | None = None) -> bytes:
    given, family = rng.choice(GIVEN), rng.choice(FAMILY)
    lines = ["BEGIN:VCARD", "VERSION:3.0", f"UID:{uuid.UUID(int=rng.getrandbits(128), version=4)}",
             f"N:{family};{given};;;", f"FN:{given} {family}"]
    kinds = ["CELL", "HOME", "WORK"]
    for kind in rng.sample(kinds, rng.randint(1, 3)):
        lines.append(f"TEL;TYPE={kind}:+{rng.randint(1, 99)} {rng.randint(100, 999)} {rng.randint(1000000, 9999999)}")
    for i in range(max(1 if photo_bytes else 0, rng.randint(0, 3))):
        user = f"{rng.choice(['a', 'j', 'm', 'k'])}.{rng.randint(1, 9999)}"
        lines.append(f"EMAIL;TYPE=INTERNET{',PREF' if i == 0 else ''}:{user}@mail{i}.example")
    city, code, country = rng.choice(CITIES)
    lines.append(f"ADR;TYPE=HOME:;;{rng.choice(STREETS)} {rng.randint(1, 200)};{city};;{code};{country}")
    if rng.random() < 0.4:
        org, unit = rng.choice(ORGS)
        lines += [f"ORG:{org};{unit}", f"TITLE:{rng.choice(TITLES)}"]
    if rng.random() < 0.5:
        lines.append(f"BDAY:{rng.randint(1930, 2015)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")
    if rng.random() < 0.3:
        lines.append("NOTE:" + "\\n".join(rng.sample(NOTES, rng.randint(1, 3))))
    lines.append("CATEGORIES:" + ",".join(rng.sample(CATEGORIES, rng.randint(1, 2))))
    for i in range(1, rng.randint(0, 2) + 1):
        site = f"{rng.choice(['blog', 'home', 'shop'])}{rng.randint(1, 999)}"
        lines += [f"item{i}.URL:https://{site}.example", f"item{i}.X-ABLabel:{rng.choice(LABELS)}"]
    if photo_bytes and photo_rng:
        lines.append("PHOTO;ENCODING=b;TYPE=JPEG:" + big_photo(photo_rng, photo_bytes))
    elif rng.random() < photos:
        lines.append("PHOTO;ENCODING=b;TYPE=JPEG:" + photo(rng, photo_size))
    lines.append("END:VCARD")
    return b"".join(fold(line) for line in lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int)
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--photos", type=float, default=0.05, help="the share of cards with a photo")
    parser.add_argument("--photo-bytes", type=int, default=0, help="every card with a photo of this many bytes")
    parser.add_argument("--photo-seed", type=int, help="the seed of the photos' bytes (--photo-bytes)")
    parser.add_argument("--photo-size", help="LOW-HIGH: the photos' JPEG bytes (default: 8-40 KB of base64)")
    parser.add_argument("--copies", type=float, default=0.02, help="the share of exact copies of earlier cards")
    args = parser.parse_args()
    photo_size = tuple(int(b) for b in args.photo_size.split("-")) if args.photo_size else None
    if photo_size and not 16 <= photo_size[0] <= photo_size[1] <= 65_000:
        parser.error("--photo-size LOW-HIGH: 16 <= LOW <= HIGH <= 65000")
    rng = random.Random(args.seed)
    photo_rng = random.Random(f"photo-{args.seed if args.photo_seed is None else args.photo_seed}")
    recent: list[bytes] = []  # a few earlier cards to copy: bounded, not the whole file
    with open(args.out, "wb") as out:
        for _ in range(args.count):
            if recent and rng.random() < args.copies and not args.photo_bytes:
                data = rng.choice(recent)
            else:
                data = card(rng, args.photos, args.photo_bytes, photo_rng, photo_size)
                if len(data) < 4096 and not args.photo_bytes:
                    recent = (recent + [data])[-64:]
            out.write(data)


if __name__ == "__main__":
    main()
