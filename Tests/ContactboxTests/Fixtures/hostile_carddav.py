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
  html-200        listings (REPORT, PROPFIND Depth 1) answer 200 with an HTML error page (database down)
  text-200        listings answer 200 with plain text
  no-well-known   /.well-known/carddav answers 404
  long-href       one more member whose href is 200 KB long
  cut-multiget    the first two addressbook-multigets' answers stop in the middle of their body (the connection
                  closes): the one sent ahead, and the same sent again alone
  trickle         listings (REPORT sync-collection, PROPFIND Depth 1) send their head, then a byte a second

Whatever the scenario, other paths stand in for the rest of a server, for discovery: /.well-known/carddav names
the principal /principal/, whose home set /home/ holds the address books /home/a/ ("A") and /home/b/ ("B") and
the calendar /home/cal/; /cal/ is a calendar, /other/ answers 403 (another user's principal), /locked/ 401, and
/login/ answers PROPFIND with 200 and a web page (a browser's address copied); anything else is 404.

Writes are taken (201 with a fresh ETag) and every request line and header block is appended to the file given
as the second argument, so that the test can see where each request went and what it carried.
"""
import gzip
import re
import sys
import time
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
elif SCENARIO == "long-href":
    ITEMS[b"/book/" + b"x" * 200000 + b".vcf"] = [b'"l1"', card("long", "Long Href")]
elif SCENARIO == "crlf-etag":
    ITEMS[b"/book/bad.vcf"] = [b'"b1&#13;&#10;X-Injected: yes"', card("bad", "Bad ETag")]
TOKEN = [1]
CUT = [0]


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
    request_body = b""

    def log_message(self, *args):
        pass

    def record(self, body):
        with open(LOG, "ab") as log:
            log.write(self.requestline.encode("latin-1", "replace") + b"\n")
            log.write(bytes(self.headers).replace(b"\r\n", b"\n"))

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.request_body = self.rfile.read(length) if length else b""
        return self.request_body

    def answer(self, status, data=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def multistatus(self, data):
        headers = [("Content-Type", "application/xml; charset=utf-8")]
        if SCENARIO == "trickle" and (self.command == "REPORT" and b"sync-collection" in self.request_body
                                      or self.command == "PROPFIND" and self.headers.get("Depth") == "1"):
            self.trickle(data, headers)
            return
        if SCENARIO == "gzip":
            data = gzip.compress(data)
            headers.append(("Content-Encoding", "gzip"))
        elif SCENARIO == "gzip-unlabelled":
            data = gzip.compress(data)
        self.answer(207, data, headers)

    def trickle(self, data, headers):
        """The whole answer's head, then its body a byte a second, until the client goes away."""
        self.send_response(207)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            for index in range(len(data)):
                self.wfile.write(data[index:index + 1])
                self.wfile.flush()
                time.sleep(1)
        except OSError:
            pass
        self.close_connection = True

    def page(self, status, text, content_type):
        self.answer(status, text.encode(), [("Content-Type", content_type)])

    def broken_page(self):
        """A listing answered 200 with what is no CardDAV answer: True when the scenario does that."""
        if SCENARIO == "html-200":
            self.page(200, "<!DOCTYPE html>\n<html>\n<head>\n<title>\n  Database &amp; cache\n  down</title></head>"
                      "<body>Error 1045: access denied for user 'www'</body></html>", "text/html")
        elif SCENARIO == "text-200":
            self.page(200, "Service temporarily down for maintenance\nsecond line", "text/plain")
        else:
            return False
        return True

    def discovery(self):
        """The rest of a server, for discovery: True when the path was one of its own."""
        path = self.path
        depth = self.headers.get("Depth")
        collection = b"<d:resourcetype><d:collection/></d:resourcetype>"
        calendar = (b'<d:resourcetype xmlns:cal="urn:ietf:params:xml:ns:caldav"><d:collection/><cal:calendar/>'
                    b"</d:resourcetype>")

        def book(name):
            return (b"<d:resourcetype><d:collection/><c:addressbook/></d:resourcetype><d:displayname>" + name
                    + b"</d:displayname>")
        if path.startswith("/.well-known/carddav"):
            if SCENARIO == "no-well-known":
                self.answer(404)
            else:
                self.multistatus(multistatus([response(
                    b"/.well-known/carddav", collection
                    + b"<d:current-user-principal><d:href>/principal/</d:href></d:current-user-principal>")]))
        elif path == "/principal/":
            self.multistatus(multistatus([response(
                b"/principal/", b"<c:addressbook-home-set><d:href>/home/</d:href></c:addressbook-home-set>")]))
        elif path == "/home/":
            members = [response(b"/home/", collection)]
            if depth == "1":
                members += [response(b"/home/a/", book(b"A")), response(b"/home/b/", book(b"B")),
                            response(b"/home/cal/", calendar)]
            self.multistatus(multistatus(members))
        elif path == "/cal/":
            self.multistatus(multistatus([response(b"/cal/", calendar)]))
        elif path == "/other/":
            self.answer(403)
        elif path == "/locked/":
            self.answer(401, headers=[("WWW-Authenticate", 'Basic realm="stand-in"')])
        elif path == "/login/":
            self.page(200, "<!DOCTYPE html>\n<html><head><title>Sign in &amp; \x1b[2Jsync</title></head>"
                      "<body><form>...</form></body></html>", "text/html; charset=utf-8")
        elif not path.startswith("/book/"):
            self.answer(404)
        else:
            return False
        return True

    def do_PROPFIND(self):
        request = self.body()
        self.record(request)
        if self.discovery():
            return
        if self.headers.get("Depth") != "0" and self.broken_page():
            return
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
        if self.broken_page():
            return
        if b"sync-collection" in request:
            token = re.search(rb"<D:sync-token>([^<]*)</D:sync-token>", request)
            with open(LOG, "ab") as log:
                log.write(b"SYNC-FROM " + (token.group(1) if token else b"") + b"\n")
            self.multistatus(multistatus([response(href, b"<d:getetag>" + item[0] + b"</d:getetag>")
                                          for href, item in ITEMS.items()], token=True))
            return
        answers = []
        for href, item in ITEMS.items():
            if escaped(href) in request or href in request or b"bad" in href and b"bad" in request:
                answers.append(response(href, b"<d:getetag>" + item[0] + b"</d:getetag><c:address-data>"
                                        + escaped(item[1]) + b"</c:address-data>"))
        if SCENARIO == "cut-multiget" and CUT[0] < 2:
            CUT[0] += 1
            data = multistatus(answers)
            self.send_response(207)
            self.send_header("Content-Type", "application/xml; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[:len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
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
