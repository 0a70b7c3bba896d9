#!/usr/bin/env python3
"""A server's floor for a sync job: the minimal requests for it, sent one after the other on one kept-alive
connection, with no client work (bodies are read and dropped; the listing's hrefs are cut out with a regular
expression). What a client cannot beat without sending fewer or cheaper requests. Prints one line of shell
assignments (floor_s and the parts named below) for Deploy/bench/speed.sh.

    floor.py download-sync URL USER PASSWORD_FILE          sync-collection without a token, then multigets
    floor.py download-propfind URL USER PASSWORD_FILE      PROPFIND depth 0 of the sync-token, PROPFIND depth 1 of
                                                           getetag, then multigets
    floor.py download-query URL USER PASSWORD_FILE         PROPFIND depth 0 of the sync-token, then one
                                                           addressbook-query of every card (getetag, address-data)
    floor.py token URL USER PASSWORD_FILE                  prints the collection's sync-token (not timed)
    floor.py changes URL USER PASSWORD_FILE TOKEN EDITS.vcf   sync-collection from TOKEN, a multiget of what it
                                                           lists, and a PUT of each card in EDITS.vcf (If-Match)
    floor.py upload URL USER PASSWORD_FILE CARDS.vcf       a PUT (If-None-Match: *) of each card, one per UID

Multigets carry FLOOR_BATCH hrefs (100, as ContactBox's) and ask for what ContactBox asks for (getetag and
address-data). USER "-" sends no credentials (Xandikos).
"""
import base64
import http.client
import os
import re
import sys
import time
import urllib.parse

BATCH = int(os.environ.get("FLOOR_BATCH", "100"))
NS = 'xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav"'
PROLOG = '<?xml version="1.0" encoding="utf-8"?>'
RESPONSE = re.compile(rb"<(?:[A-Za-z0-9_]+:)?response[ >]")
HREF = re.compile(rb"<(?:[A-Za-z0-9_]+:)?href>([^<]*)</")
TOKEN = re.compile(rb"<(?:[A-Za-z0-9_]+:)?sync-token>([^<]*)</")
ETAG = re.compile(rb"<(?:[A-Za-z0-9_]+:)?getetag>([^<]*)</")


class Server:
    def __init__(self, url, user, password_file):
        parts = urllib.parse.urlsplit(url)
        self.path = parts.path
        connection = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        self.connection = connection(parts.hostname, parts.port)
        self.headers = {}
        if user != "-":
            password = open(password_file).read().strip()
            self.headers["Authorization"] = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

    def request(self, method, path, body=b"", headers=None, keep=False):
        """(status, headers, body if keep else b"") with the body read in full either way."""
        all_headers = dict(self.headers)
        all_headers.update(headers or {})
        self.connection.request(method, path, body=body, headers=all_headers)
        response = self.connection.getresponse()
        parts = []
        while chunk := response.read(1 << 16):
            if keep:
                parts.append(chunk)
        return response.status, response, b"".join(parts)

    def xml(self, method, body, depth=None, keep=True):
        headers = {"Content-Type": "application/xml; charset=utf-8"}
        if depth is not None:
            headers["Depth"] = depth
        status, _, data = self.request(method, self.path, (PROLOG + body).encode(), headers, keep=keep)
        if status != 207:
            sys.exit(f"floor.py: {method} {self.path}: {status}")
        return data

    def members(self, data):
        """The hrefs of the items a listing names (not the collection, not those listed as gone)."""
        hrefs = []
        own = urllib.parse.unquote(self.path).rstrip("/")
        for response in RESPONSE.split(data)[1:]:
            match = HREF.search(response)
            if not match or b" 404 " in response and not ETAG.search(response):
                continue
            href = match.group(1).decode()
            if urllib.parse.unquote(urllib.parse.urlsplit(href).path).rstrip("/") != own:
                hrefs.append(href)
        return hrefs

    def sync_collection(self, token):
        element = f"<D:sync-token>{token}</D:sync-token>" if token else "<D:sync-token/>"
        body = (f"<D:sync-collection {NS}>{element}<D:sync-level>1</D:sync-level>"
                "<D:prop><D:getetag/></D:prop></D:sync-collection>")
        return self.xml("REPORT", body, depth="0")

    def token(self):
        data = self.xml("PROPFIND", f"<D:propfind {NS}><D:prop><D:sync-token/></D:prop></D:propfind>", depth="0")
        match = TOKEN.search(data)
        return match.group(1).decode() if match else ""

    def propfind_listing(self):
        body = f"<D:propfind {NS}><D:prop><D:getetag/><D:resourcetype/></D:prop></D:propfind>"
        return self.xml("PROPFIND", body, depth="1")

    def query_all(self):
        """Every card with its ETag in one addressbook-query, as ContactBox's first download from Radicale asks."""
        body = (f"<C:addressbook-query {NS}><D:prop><D:getetag/><D:resourcetype/><C:address-data/></D:prop>"
                '<C:filter test="allof"/></C:addressbook-query>')
        self.xml("REPORT", body, depth="1", keep=False)

    def multigets(self, hrefs):
        for start in range(0, len(hrefs), BATCH):
            body = (f"<C:addressbook-multiget {NS}><D:prop><D:getetag/><C:address-data/></D:prop>"
                    + "".join(f"<D:href>{h}</D:href>" for h in hrefs[start:start + BATCH])
                    + "</C:addressbook-multiget>")
            headers = {"Content-Type": "application/xml; charset=utf-8"}
            status, _, _ = self.request("REPORT", self.path, (PROLOG + body).encode(), headers)
            if status != 207:
                sys.exit(f"floor.py: multiget: {status}")


def cards(path):
    """(uid, bytes) of each card in a .vcf file, the first of each UID only."""
    seen = set()
    data = open(path, "rb").read()
    for chunk in data.split(b"BEGIN:VCARD")[1:]:
        card = b"BEGIN:VCARD" + chunk.split(b"END:VCARD", 1)[0] + b"END:VCARD\r\n"
        uid = card.split(b"\nUID:", 1)[1].split(b"\r\n", 1)[0].decode()
        if uid not in seen:
            seen.add(uid)
            yield uid, card


def put(server, uid, card, headers):
    headers = dict(headers, **{"Content-Type": "text/vcard; charset=utf-8"})
    status, _, _ = server.request("PUT", server.path + urllib.parse.quote(uid) + ".vcf", card, headers)
    if status not in (201, 204):
        sys.exit(f"floor.py: PUT {uid}: {status}")


def main(command, url, user, password_file, *rest):
    server = Server(url, user, password_file)
    if command == "token":
        print(server.token())
        return
    start = time.monotonic()
    parts = {}
    if command == "download-sync":
        hrefs = server.members(server.sync_collection(None))
        parts["listing_s"] = time.monotonic() - start
        server.multigets(hrefs)
    elif command == "download-propfind":
        server.token()
        parts["token_s"] = time.monotonic() - start
        hrefs = server.members(server.propfind_listing())
        parts["listing_s"] = time.monotonic() - start - parts["token_s"]
        server.multigets(hrefs)
    elif command == "download-query":
        server.token()
        parts["token_s"] = time.monotonic() - start
        server.query_all()
        parts["listing_s"] = time.monotonic() - start - parts["token_s"]
    elif command == "changes":
        token, edits = rest
        # The ETags the local edits are sent against: read before the clock starts (the client has them stored).
        listing = server.propfind_listing()
        etags = {}
        for response in RESPONSE.split(listing)[1:]:
            href, etag = HREF.search(response), ETAG.search(response)
            if href and etag:
                name = urllib.parse.unquote(href.group(1).decode()).rsplit("/", 1)[-1]
                etags[name] = etag.group(1).decode().replace("&quot;", '"')
        start = time.monotonic()
        hrefs = server.members(server.sync_collection(token))
        server.multigets(hrefs)
        parts["listed"] = len(hrefs)
        for uid, card in cards(edits):
            put(server, uid, card, {"If-Match": etags[uid + ".vcf"]})
    elif command == "upload":
        (path,) = rest
        count = 0
        for uid, card in cards(path):
            put(server, uid, card, {"If-None-Match": "*"})
            count += 1
        parts["puts"] = count
    else:
        sys.exit(__doc__)
    parts["floor_s"] = time.monotonic() - start
    print(" ".join(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}" for k, v in parts.items()))


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
