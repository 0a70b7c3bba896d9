#!/usr/bin/env python3
"""A small hostile CardDAV server for the ContactboxTests suite: Python 3 standard library only.

Serves one address book at /book/ on 127.0.0.1, a random port, and writes "PORT <port>" to standard output once
it listens. The book holds good1.vcf and good2.vcf plus what the scenario (the first argument) adds or breaks:

  bad-utf8-card   bad.vcf's address-data holds bytes that are not UTF-8 (its GET answers the same bytes)
  bad-utf8-href   one more member whose href holds bytes that are not UTF-8
  bad-utf8-etag   bad.vcf's ETag holds bytes that are not UTF-8
  control-charref bad.vcf's FN holds a vertical tab, which its address-data writes as &#x0B; (as libxml2 would)
  crlf-etag       bad.vcf's ETag holds CR LF and a header after them, as character references
  entities        every multistatus declares and uses an XML entity
  deep            every multistatus is nested 10,000 elements deep
  gzip            every multistatus is gzip-compressed and says so (Content-Encoding: gzip)
  gzip-unlabelled every multistatus is gzip-compressed without saying so
  forgets-tokens  nothing added or broken: a stand-in for a real server seen answering a sync token it no longer
                  knew with every member and no removal (RFC 6578 asks for DAV:valid-sync-token), which the
                  sync-collection of every scenario here does

Writes are taken (201 with a fresh ETag) and every request line and header block is appended to the file given
as the second argument, so that the test can see where each request went and what it carried.
"""
import gzip
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCENARIO = sys.argv[1]
LOG = sys.argv[2]


def card(uid, name):
    return ("BEGIN:VCARD\r\nVERSION:3.0\r\nUID:%s\r\nFN:%s\r\nEND:VCARD\r\n" % (uid, name)).encode()


# href (bytes) -> [etag (bytes, as it goes in the XML), card bytes]
ITEMS = {
    b"/book/good1.vcf": [b'"g1"', card("good1", "Good One")],
    b"/book/good2.vcf": [b'"g2"', card("good2", "Good Two")],
}
if SCENARIO == "bad-utf8-card":
    ITEMS[b"/book/bad.vcf"] = [b'"b1"', b"BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bad\r\nFN:Bad \xe9t\xe9\r\nEND:VCARD\r\n"]
elif SCENARIO == "bad-utf8-href":
    ITEMS[b"/book/bad\xff.vcf"] = [b'"b1"', card("bad", "Bad Href")]
elif SCENARIO == "bad-utf8-etag":
    ITEMS[b"/book/bad.vcf"] = [b'"b\xff1"', card("bad", "Bad ETag")]
elif SCENARIO == "control-charref":
    ITEMS[b"/book/bad.vcf"] = [b'"b1"', card("bad", "Vertical\x0bTab")]
elif SCENARIO == "crlf-etag":
    ITEMS[b"/book/bad.vcf"] = [b'"b1&#13;&#10;X-Injected: yes"', card("bad", "Bad ETag")]
TOKEN = [1]


def escaped(data):
    return data.replace(b"&", b"&amp;").replace(b"<", b"&lt;").replace(b">", b"&gt;").replace(b"\x0b", b"&#x0B;")


def multistatus(responses, token=False):
    head = b'<?xml version="1.0" encoding="utf-8"?>\n'
    if SCENARIO == "entities":
        head += b'<!DOCTYPE d:multistatus [<!ENTITY lol9 "lol">]>\n'
    body = (b'<d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:carddav" '
            b'xmlns:cs="http://calendarserver.org/ns/">')
    if SCENARIO == "entities":
        body += b"<d:response><d:href>&lol9;</d:href></d:response>"
    if SCENARIO == "deep":
        body += b"<x>" * 100000 + b"</x>" * 100000
    body += b"".join(responses)
    if token:
        body += b"<d:sync-token>http://example.org/token/%d</d:sync-token>" % TOKEN[0]
    return head + body + b"</d:multistatus>"


def response(href, props):
    return (b"<d:response><d:href>" + href + b"</d:href><d:propstat><d:prop>" + props
            + b"</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, body):
        with open(LOG, "ab") as log:
            log.write(self.requestline.encode("latin-1", "replace") + b"\n")
            log.write(bytes(self.headers).replace(b"\r\n", b"\n"))

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def answer(self, status, data=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def multistatus(self, data):
        headers = [("Content-Type", "application/xml; charset=utf-8")]
        if SCENARIO == "gzip":
            data = gzip.compress(data)
            headers.append(("Content-Encoding", "gzip"))
        elif SCENARIO == "gzip-unlabelled":
            data = gzip.compress(data)
        self.answer(207, data, headers)

    def do_PROPFIND(self):
        request = self.body()
        self.record(request)
        if self.headers.get("Depth") == "0":
            props = (b"<d:resourcetype><d:collection/><c:addressbook/></d:resourcetype>"
                     b"<d:supported-report-set><d:supported-report><d:report><d:sync-collection/></d:report>"
                     b"</d:supported-report></d:supported-report-set>")
            self.multistatus(multistatus([response(b"/book/", props)]))
            return
        self.multistatus(multistatus([response(href, b"<d:getetag>" + item[0] + b"</d:getetag>")
                                      for href, item in ITEMS.items()]))

    def do_REPORT(self):
        request = self.body()
        self.record(request)
        if b"sync-collection" in request:
            self.multistatus(multistatus([response(href, b"<d:getetag>" + item[0] + b"</d:getetag>")
                                          for href, item in ITEMS.items()], token=True))
            return
        answers = []
        for href, item in ITEMS.items():
            if escaped(href) in request or href in request or b"bad" in href and b"bad" in request:
                answers.append(response(href, b"<d:getetag>" + item[0] + b"</d:getetag><c:address-data>"
                                        + escaped(item[1]) + b"</c:address-data>"))
        self.multistatus(multistatus(answers))

    def do_GET(self):
        self.record(b"")
        for href, item in ITEMS.items():
            if href == self.path.encode("latin-1"):
                etag = item[0].replace(b"&#13;", b"\r").replace(b"&#10;", b"\n")
                headers = [("Content-Type", "text/vcard")]
                if b"\r" not in etag:
                    headers.append(("ETag", etag.decode("latin-1")))
                self.answer(200, item[1], headers)
                return
        self.answer(404)

    def do_PUT(self):
        data = self.body()
        self.record(data)
        TOKEN[0] += 1
        ITEMS[self.path.encode("latin-1")] = [b'"n%d"' % TOKEN[0], data]
        self.answer(201, headers=[("ETag", '"n%d"' % TOKEN[0])])

    def do_DELETE(self):
        self.record(b"")
        ITEMS.pop(self.path.encode("latin-1"), None)
        self.answer(204)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("PORT %d" % server.server_address[1], flush=True)
server.serve_forever()
