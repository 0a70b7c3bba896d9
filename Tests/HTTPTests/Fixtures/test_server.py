#!/usr/bin/env python3
"""HTTP server for the HTTPTests suite: Python 3 standard library only.

Serves the same endpoints on 127.0.0.1 and 127.0.0.2 (a second host, for cross-host redirects), each on a
random port, and prints "PORTS <port on 127.0.0.1> <port on 127.0.0.2>" once both listen.

Endpoints (any method):
  /echo                      JSON: method, path, headers, body, host, connection (client port), request number
  /bytes?n=N&chunk=C         N bytes (Content-Length), written C bytes at a time
  /basic                     requires Basic user:secret, then echoes
  /digest                    requires Digest (RFC 7616, MD5, qop=auth) user:secret, then echoes
  /redirect?status=S&to=URL  answers S with Location: URL (relative or absolute)
  /too-many-requests         429 with Retry-After: 7
  /sleep?seconds=F           waits F seconds before answering (as /echo)
  /gather?n=N                waits until N requests are in /gather at once (at most 60 s), then answers as /echo;
                             503 if they never gathered
  /trickle?n=N&interval=F&claim=C&hold=H
                             N bytes, one every F seconds, under Content-Length C; then holds H seconds
  /stats                     JSON: requests by method, 401s sent, and the most requests ever in /gather at once
"""
import base64
import hashlib
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

USER, PASSWORD, REALM = "user", "secret", "contactbox-test"
lock = threading.Lock()
stats = {"total": 0, "byMethod": {}, "unauthorized": 0, "peakGathered": 0}
gathered = threading.Condition(lock)
in_gather = 0
nonces = set()


def md5(text):
    return hashlib.md5(text.encode()).hexdigest()


def parse_auth_params(value):
    params, rest = {}, value
    while rest:
        rest = rest.lstrip(" ,")
        if "=" not in rest:
            break
        key, rest = rest.split("=", 1)
        if rest.startswith('"'):
            end = rest.index('"', 1)
            params[key.strip().lower()], rest = rest[1:end], rest[end + 1:]
        else:
            value, _, rest = rest.partition(",")
            params[key.strip().lower()] = value.strip()
    return params


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def handle_one_request(self):
        try:
            super().handle_one_request()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def __getattr__(self, name):
        if name.startswith("do_"):
            return self.dispatch
        raise AttributeError(name)

    def send(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def echo(self, body, number):
        payload = {
            "method": self.command,
            "path": self.path,
            "headers": {name.lower(): value for name, value in self.headers.items()},
            "body": body.decode("utf-8", "replace"),
            "host": self.server.server_address[0],
            "connection": self.client_address[1],
            "number": number,
        }
        self.send(200, json.dumps(payload).encode(), [("Content-Type", "application/json")])

    def dispatch(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        with lock:
            stats["total"] += 1
            stats["byMethod"][self.command] = stats["byMethod"].get(self.command, 0) + 1
            number = stats["total"]
        url = urlsplit(self.path)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        route = url.path
        if route == "/echo":
            self.echo(body, number)
        elif route == "/bytes":
            total, chunk = int(query.get("n", "0")), int(query.get("chunk", "65536"))
            self.send_response(200)
            self.send_header("Content-Length", str(total))
            self.end_headers()
            block = b"x" * chunk
            sent = 0
            while sent < total:
                part = block[: min(chunk, total - sent)]
                self.wfile.write(part)
                sent += len(part)
        elif route == "/basic":
            expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
            if self.headers.get("Authorization") == expected:
                self.echo(body, number)
            else:
                self.unauthorized(f'Basic realm="{REALM}"')
        elif route == "/digest":
            if self.digest_ok():
                self.echo(body, number)
            else:
                nonce = os.urandom(16).hex()
                with lock:
                    nonces.add(nonce)
                self.unauthorized(f'Digest realm="{REALM}", qop="auth", algorithm=MD5, nonce="{nonce}", opaque="xyz"')
        elif route == "/redirect":
            self.send(int(query.get("status", "302")), b"moved", [("Location", query.get("to", self.path))])
        elif route == "/too-many-requests":
            self.send(429, b"slow down", [("Retry-After", "7")])
        elif route == "/trickle":
            # A byte every `interval` seconds, `n` in all, under a Content-Length that may claim more (`claim`).
            total, interval = int(query.get("n", "100")), float(query.get("interval", "0.1"))
            self.send_response(200)
            self.send_header("Content-Length", query.get("claim", str(total)))
            self.end_headers()
            try:
                for _ in range(total):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(interval)
                time.sleep(float(query.get("hold", "0")))
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif route == "/sleep":
            time.sleep(float(query.get("seconds", "1")))
            self.echo(body, number)
        elif route == "/gather":
            # Concurrency seen by the server, not timed by the client: the answer comes only once N requests wait
            # here together, so a client that sends fewer at once gets 503s.
            global in_gather
            wanted = int(query.get("n", "2"))
            with gathered:
                in_gather += 1
                stats["peakGathered"] = max(stats["peakGathered"], in_gather)
                gathered.notify_all()
                met = gathered.wait_for(lambda: stats["peakGathered"] >= wanted, timeout=60)
                in_gather -= 1
            if met:
                self.echo(body, number)
            else:
                self.send(503, b"never gathered")
        elif route == "/stats":
            with lock:
                payload = json.dumps(stats).encode()
            self.send(200, payload, [("Content-Type", "application/json")])
        else:
            self.send(404, b"not found")

    def unauthorized(self, challenge):
        with lock:
            stats["unauthorized"] += 1
        self.send(401, b"unauthorized", [("WWW-Authenticate", challenge)])

    def digest_ok(self):
        # RFC 7616 3.4.1, MD5 with qop=auth:
        # response = MD5(MD5(user:realm:password):nonce:nc:cnonce:qop:MD5(method:uri))
        header = self.headers.get("Authorization") or ""
        if not header.startswith("Digest "):
            return False
        params = parse_auth_params(header[len("Digest "):])
        with lock:
            known = params.get("nonce") in nonces
        if not known or params.get("username") != USER or params.get("realm") != REALM:
            return False
        if params.get("uri") != self.path:
            return False
        ha1 = md5(f"{USER}:{REALM}:{PASSWORD}")
        ha2 = md5(f"{self.command}:{params['uri']}")
        expected = md5(":".join([ha1, params["nonce"], params.get("nc", ""), params.get("cnonce", ""),
                                 params.get("qop", ""), ha2]))
        return params.get("response") == expected


def main():
    # Started from a test thread, we may inherit a signal mask that blocks SIGTERM: stop must work.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    servers = [ThreadingHTTPServer((host, 0), Handler) for host in ("127.0.0.1", "127.0.0.2")]
    for server in servers:
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print("PORTS", *(server.server_address[1] for server in servers), flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
