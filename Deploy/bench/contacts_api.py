#!/usr/bin/env python3
"""Walks the daemon's JSON API for Deploy/bench/contacts.sh, over one kept-alive connection, with a token.

    contacts_api.py list URL TOKEN CURSORS      GET /api/contacts?limit=100, then &after=NEXT to the end; writes each
                                                `next` cursor to CURSORS, a line each
    contacts_api.py feed URL TOKEN              GET /api/changes?since=0&limit=100, then since=last_seq to the end
    contacts_api.py export URL TOKEN            GET /api/export, streamed: its bytes and cards counted, never held

Each prints one line of shell assignments: pages (requests), count (contacts or changes; feed: distinct UIDs,
export: lines BEGIN:VCARD), bytes (export), ms (wall, from the first request to the end), slowest_ms (the slowest
page), http (the first HTTP status that was not 200, or 200).
"""
import http.client
import json
import sys
import time
import urllib.parse


def connect(url):
    parts = urllib.parse.urlsplit(url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)


def get(connection, path, token):
    connection.request("GET", path, headers={"Authorization": f"Bearer {token}"})
    return connection.getresponse()


def pages(url, token, first, following, key):
    """(pages, items, slowest ms, status): GETs `first`, then following(answer) until it gives None."""
    connection = connect(url)
    path, count, slowest, status = first, 0, 0.0, 200
    items = []
    while path is not None:
        started = time.monotonic()
        response = get(connection, path, token)
        body = response.read()
        slowest = max(slowest, (time.monotonic() - started) * 1000)
        if response.status != 200:
            status = response.status
            break
        answer = json.loads(body)
        items.extend(answer[key])
        count += 1
        path = following(answer)
    return count, items, slowest, status


def main():
    command, url, token = sys.argv[1], sys.argv[2], sys.argv[3]
    started = time.monotonic()
    if command == "list":
        cursors = []

        def following(answer):
            if answer["next"] is None:
                return None
            cursors.append(answer["next"])
            return "/api/contacts?limit=100&after=" + urllib.parse.quote(answer["next"], safe="")

        count, items, slowest, status = pages(url, token, "/api/contacts?limit=100", following, "contacts")
        with open(sys.argv[4], "w") as out:
            out.writelines(cursor + "\n" for cursor in cursors)
        found = len(items)
    elif command == "feed":

        def following(answer):
            return f"/api/changes?since={answer['last_seq']}&limit=100" if answer["results"] else None

        count, items, slowest, status = pages(url, token, "/api/changes?since=0&limit=100", following, "results")
        found = len({item["uid"] for item in items if not item["deleted"]})
    elif command == "export":
        connection = connect(url)
        response = get(connection, "/api/export", token)
        status, count, found, size, slowest, tail = response.status, 1, 0, 0, 0.0, b"\n"
        while chunk := response.read(1 << 16):
            size += len(chunk)
            # A card begins at the start of a line: the text after a line break (also across two chunks).
            found += (tail + chunk).count(b"\nBEGIN:VCARD")
            tail = chunk[-11:]  # shorter than the marker: never counted twice
        print(f"bytes={size}", end=" ")
    else:
        sys.exit(__doc__)
    ms = (time.monotonic() - started) * 1000
    print(f"pages={count} count={found} ms={ms:.0f} slowest_ms={slowest:.0f} http={status}")


if __name__ == "__main__":
    main()
