#!/usr/bin/env python3
"""Benchmark data for the sync figures, without going through Radicale's slow PUT path.

    seed_radicale.py collection FOLDER N        write N cards into a Radicale collection folder (server stopped)
    seed_radicale.py files FOLDER N             the same N cards as files UID.vcf only (Xandikos: then committed)
    seed_radicale.py split CARDS.vcf FOLDER     each card of a .vcf file as FOLDER/UID.vcf (the first of each UID;
                                                streamed: photo books of megabytes a card)
    seed_radicale.py edit-remote URL USER PASSWORD_FILE N TOTAL [NOTE]   change N of the seeded cards over HTTP
    seed_radicale.py edit-local OUT.vcf N TOTAL  write N other seeded cards, changed, for `contactbox import --update`
    seed_radicale.py edit-folder FOLDER N TOTAL NOTE   rewrite the files of N other seeded cards in a vCard folder
                                                       (named UID.vcf, as ContactBox names them), changed
    seed_radicale.py edit-files FOLDER N TOTAL NOTE    the N cards edit-remote changes, changed, as FOLDER/UID.vcf,
                                                       to be PUT a few at a time; prints their UIDs in that order
NOTE (default "remote", "local") goes into the changed cards, so that each round of edits is a change again.

Cards come from gen_contacts.card() with seed 7, so every command sees the same N cards; file names are the UIDs.
"""
import base64
import json
import os
import random
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_contacts import card  # noqa: E402


def cards(total):
    rng = random.Random(7)
    for _ in range(total):
        data = card(rng)
        uid = data.split(b"\r\nUID:", 1)[1].split(b"\r\n", 1)[0].decode()
        yield uid, data


def changed(data, note):
    return data.replace(b"\r\nEND:VCARD", f"\r\nX-BENCH-EDIT:{note}\r\nEND:VCARD".encode())


def collection(folder, total):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, ".Radicale.props"), "w") as props:
        json.dump({"tag": "VADDRESSBOOK", "D:displayname": "bench"}, props)
    files(folder, total)


def files(folder, total):
    os.makedirs(folder, exist_ok=True)
    for uid, data in cards(total):
        with open(os.path.join(folder, uid + ".vcf"), "wb") as out:
            out.write(data)


def split(path, folder):
    """Line by line, a card at a time: a book of photos of megabytes is never held whole."""
    os.makedirs(folder, exist_ok=True)
    temporary = os.path.join(folder, ".split.tmp")
    out, uid = None, None
    with open(path, "rb") as source:
        for line in source:
            if line.startswith(b"BEGIN:VCARD"):
                out, uid = open(temporary, "wb"), None
            if out is None:
                continue
            if uid is None and line.startswith(b"UID:"):
                uid = line[4:].rstrip(b"\r\n").decode()
            if line.startswith(b"END:VCARD"):
                out.write(b"END:VCARD\r\n")
                out.close()
                out, target = None, os.path.join(folder, f"{uid}.vcf")
                if uid is not None and not os.path.exists(target):
                    os.replace(temporary, target)
                continue
            out.write(line)
    if os.path.exists(temporary):
        os.remove(temporary)


def edit_remote(url, user, password_file, count, total, note="remote"):
    password = open(password_file).read().strip()
    auth = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
    step = max(1, total // count)
    for index, (uid, data) in enumerate(cards(total)):
        if index % step == 0 and index // step < count:
            request = urllib.request.Request(url + uid + ".vcf", data=changed(data, note), method="PUT")
            request.add_header("Authorization", auth)
            request.add_header("Content-Type", "text/vcard")
            urllib.request.urlopen(request).read()


def edit_files(folder, count, total, note):
    os.makedirs(folder, exist_ok=True)
    step = max(1, total // count)
    for index, (uid, data) in enumerate(cards(total)):
        if index % step == 0 and index // step < count:
            with open(os.path.join(folder, uid + ".vcf"), "wb") as out:
                out.write(changed(data, note))
            print(uid)


def edit_local(out_path, count, total):
    step = max(1, total // count)
    with open(out_path, "wb") as out:
        for index, (uid, data) in enumerate(cards(total)):
            if index % step == step // 2 and index // step < count:
                out.write(changed(data, "local"))


def edit_folder(folder, count, total, note):
    step = max(1, total // count)
    for index, (uid, data) in enumerate(cards(total)):
        if index % step == step // 2 and index // step < count:
            temporary = os.path.join(folder, "." + uid + ".tmp")  # renamed into place: never read half-written
            with open(temporary, "wb") as out:
                out.write(changed(data, note))
            os.replace(temporary, os.path.join(folder, uid + ".vcf"))


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "collection":
        collection(args[0], int(args[1]))
    elif command == "files":
        files(args[0], int(args[1]))
    elif command == "split":
        split(args[0], args[1])
    elif command == "edit-remote":
        edit_remote(args[0], args[1], args[2], int(args[3]), int(args[4]), *args[5:6])
    elif command == "edit-folder":
        edit_folder(args[0], int(args[1]), int(args[2]), args[3])
    elif command == "edit-files":
        edit_files(args[0], int(args[1]), int(args[2]), args[3])
    elif command == "edit-local":
        edit_local(args[0], int(args[1]), int(args[2]))
    else:
        sys.exit(__doc__)
