#!/usr/bin/env python3
"""A STAND-IN for Google's OAuth 2.0 authorization server, for ContactBox's tests only.

Google's CardDAV takes only OAuth 2.0 bearer tokens and no test can reach Google, so the
tests start this server on 127.0.0.1 (Tests/TestSupport/OAuthStandIn.swift). It is not
Google's server and not a general one: one confidential client, one consenting user,
everything in memory. What it does, it does as RFC 6749 (OAuth 2.0), RFC 7636 (PKCE),
RFC 7662 (introspection) and RFC 7009 (revocation) say, and where Google chooses among
what the RFCs allow, it chooses as Google does (see "Like Google" below).

No ready server fitted (checked on PyPI and Debian): the OAuth libraries there
(oauthlib, authlib, django-oauth-toolkit) need an application around them, and the
runnable mock providers accept any client and secret, have no RFC 7662 introspection
and no way for a test to expire or revoke tokens. Python's standard library only.

Endpoints
  GET  /authorize       RFC 6749 4.1.1: response_type=code, client_id, redirect_uri (a
                        loopback http://127.0.0.1:PORT/..., http://[::1]:PORT/... or
                        http://localhost[:PORT]/..., as Google allows Desktop clients),
                        scope, state, code_challenge, code_challenge_method=S256 (PKCE is
                        required, `plain` refused), optional access_type=offline and
                        prompt. Answers a small HTML consent page whose form posts to
                        POST /authorize with the button "Allow" (id "allow") or "Deny"
                        (id "deny"). An unknown client or a bad redirect_uri is an error
                        page (400), never a redirect (RFC 6749 4.1.2.1); other errors are
                        a 302 to redirect_uri with error= and state=.
  POST /authorize       The consent form: 302 to redirect_uri?code=...&state=... (state
                        exactly as sent), or error=access_denied. A code is single use,
                        lives 60 s (--code-lifetime) and is bound to the client, the
                        redirect_uri and the code_challenge.
  POST /token           RFC 6749 4.1.3 and 6, application/x-www-form-urlencoded, the
                        client authenticated by HTTP Basic or client_id and client_secret
                        in the body (RFC 6749 2.3.1; both at once is invalid_request).
                        grant_type=authorization_code (code, redirect_uri, code_verifier
                        checked against the S256 challenge; a code used twice is
                        invalid_grant and revokes every token issued from it, RFC 6749
                        4.1.2) or grant_type=refresh_token (refresh_token, optional
                        narrower scope). Answers {"access_token", "token_type": "Bearer",
                        "expires_in", "scope"[, "refresh_token"]}; errors as RFC 6749 5.2
                        (invalid_request, invalid_client with 401, invalid_grant,
                        unauthorized_client, unsupported_grant_type, invalid_scope).
                        Every answer has Cache-Control: no-store and Pragma: no-cache.
  POST /introspect      RFC 7662, the client's credentials as for /token: {"active": true,
                        "sub", "username", "scope", "client_id", "token_type", "exp",
                        "iat"} or {"active": false}.
  POST /revoke          RFC 7009 (Google's revocation endpoint): revokes the token and
                        what was issued with it; 200 even for an unknown token.
  GET  /auth-check      For nginx's auth_request, which cannot POST a body: reads
                        "Authorization: Bearer TOKEN"; 200 with "X-User: USER" for a
                        valid, unexpired access token with the --required-scope, 401 with
                        WWW-Authenticate: Bearer (RFC 6750 3.1: error="invalid_token" when
                        a token was given) otherwise, 403 insufficient_scope.
  GET  /.well-known/oauth-authorization-server   RFC 8414 metadata.

Test controls (ONLY for tests; a real server has nothing like them)
  POST /admin/expire-access-tokens   every access token issued so far expires now.
  POST /admin/revoke?user=USER       revokes USER's grants: the refresh tokens (the next
                                     refresh is invalid_grant) and the access tokens, as
                                     Google does when the user removes the app's access.
  GET  /admin/log                    JSON: {"events": [...], "grants": {"authorization_code":
                                     N, "refresh_token": N}, "refreshes": N (successful),
                                     "codes_issued": N, "auth_checks": {"200": N, ...}}.
                                     An event names the endpoint, the grant type, how the
                                     client authenticated, the status and the error, and
                                     /authorize's parameters other than state and the
                                     challenge. Tokens and codes appear nowhere in it, nor in
                                     the server's own log (standard error), which names only
                                     the method, the path without its query and the status:
                                     only the answers to the client carry them.

Like Google
  - Codes look like "4/0A<random>", access tokens like "ya29.<random>", refresh tokens like
    "1//<random>": codes and refresh tokens have slashes, which a client must form-encode.
  - A refresh token is issued only when /authorize had access_type=offline.
  - A refresh answers a new access token and no new refresh token: the old one goes on
    (--rotate-refresh-tokens issues a new one each time and retires the old, as RFC 6749 6
    allows and some servers do).

Command line: --port, --client-id, --client-secret, --user (the account that consents),
--access-lifetime SECONDS (3600), --code-lifetime SECONDS (60), --scopes (the scopes a
client may ask for, space-separated), --required-scope (what /auth-check demands),
--rotate-refresh-tokens. Binds 127.0.0.1 only; one thread per connection.
"""

import argparse
import base64
import hashlib
import html
import json
import re
import secrets
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CARDDAV_SCOPE = "https://www.googleapis.com/auth/carddav"
# RFC 7636 4.1: code_verifier = 43*128unreserved; 4.2: an S256 challenge is 43 base64url characters.
VERIFIER = re.compile(r"^[A-Za-z0-9\-._~]{43,128}$")
S256_CHALLENGE = re.compile(r"^[A-Za-z0-9\-_]{43}$")
# RFC 6749 A.5: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ).
SCOPE_TOKEN = re.compile(r"^[\x21\x23-\x5b\x5d-\x7e]+$")
PENDING_LIFETIME = 600


def fingerprint(token):
    return hashlib.sha256(token.encode()).hexdigest()[:12]


class Failure(Exception):
    """An RFC 6749 5.2 error answer of the token endpoint (or of introspection and revocation)."""

    def __init__(self, error, description, status=400):
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status


class State:
    """Everything the server knows, behind one lock."""

    def __init__(self, options):
        self.options = options
        self.lock = threading.Lock()
        self.pending = {}  # consent request id -> the /authorize parameters
        self.codes = {}  # code -> grant
        self.access = {}  # access token -> {user, scope, client_id, exp, iat, grant}
        self.refresh = {}  # refresh token -> {user, scope, client_id, iat, grant, active}
        self.events = []
        self.grants = {"authorization_code": 0, "refresh_token": 0}
        self.refreshes = 0
        self.codes_issued = 0
        self.auth_checks = {}

    def event(self, **fields):
        fields["time"] = round(time.time(), 3)
        with self.lock:
            self.events.append(fields)

    # Tokens. A grant is one consent's code; everything issued from it is revoked together.

    def issue(self, grant, scope, with_refresh):
        now = int(time.time())
        access = "ya29." + secrets.token_urlsafe(48)
        self.access[access] = {
            "user": grant["user"], "scope": scope, "client_id": grant["client_id"],
            "exp": now + self.options.access_lifetime, "iat": now, "grant": grant,
        }
        grant["tokens"].append(access)
        answer = {
            "access_token": access, "token_type": "Bearer",
            "expires_in": self.options.access_lifetime, "scope": scope,
        }
        if with_refresh:
            refresh = "1//" + secrets.token_urlsafe(48)
            self.refresh[refresh] = {
                "user": grant["user"], "scope": grant["scope"], "client_id": grant["client_id"],
                "iat": now, "grant": grant, "active": True,
            }
            grant["tokens"].append(refresh)
            answer["refresh_token"] = refresh
        return answer

    def revoke_grant(self, grant):
        for token in grant["tokens"]:
            self.access.pop(token, None)
            if token in self.refresh:
                self.refresh[token]["active"] = False
        grant["revoked"] = True

    def active_access(self, token):
        entry = self.access.get(token)
        if entry is None or entry["grant"].get("revoked") or entry["exp"] <= time.time():
            return None
        return entry


def parse_form(text):
    """RFC 6749 3.1, 3.2: a parameter without a value is omitted; none may appear twice."""
    pairs = urllib.parse.parse_qsl(text, keep_blank_values=True, strict_parsing=False)
    params = {}
    for name, value in pairs:
        if name in params:
            raise Failure("invalid_request", "parameter %s appears more than once" % name)
        if value != "":
            params[name] = value
    return params


def is_loopback_redirect(uri):
    """Google's Desktop clients: http on a loopback address, any port, any path, no fragment."""
    try:
        parts = urllib.parse.urlsplit(uri)
        parts.port  # raises ValueError for a bad port
    except ValueError:
        return False
    if parts.scheme != "http" or parts.fragment or "#" in uri or parts.username or parts.password:
        return False
    return parts.hostname in ("127.0.0.1", "localhost", "::1")


def with_query(uri, params):
    """RFC 6749 3.1.2: the redirection URI's own query is kept; the answer's parameters are added."""
    parts = urllib.parse.urlsplit(uri)
    query = parts.query + ("&" if parts.query else "") + urllib.parse.urlencode(params)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "OAuthStandIn/1"
    state = None  # set by main()

    # --- plumbing -------------------------------------------------------------------

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass  # log_request below writes a line without the query, which may hold a code.

    def log_request(self, code="-", size="-"):
        path = self.path.split("?", 1)[0]
        sys.stderr.write("%s %s %s\n" % (self.command, path, code))
        sys.stderr.flush()

    def send(self, status, body=b"", content_type="application/json", headers=()):
        if isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        if body or status not in (204, 304):
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, status, value, headers=()):
        no_store = (("Cache-Control", "no-store"), ("Pragma", "no-cache"))
        self.send(status, json.dumps(value), "application/json;charset=UTF-8", no_store + tuple(headers))

    def send_failure(self, failure):
        headers = ()
        if failure.status == 401:
            headers = (("WWW-Authenticate", 'Basic realm="oauth-standin"'),)
        self.send_json(failure.status, {"error": failure.error, "error_description": failure.description}, headers)

    def body(self):
        if self.headers.get("Transfer-Encoding"):
            raise Failure("invalid_request", "chunked bodies are not taken here")
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def form(self):
        """The body of a POST as RFC 6749's form parameters."""
        raw = self.body()
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if content_type != "application/x-www-form-urlencoded":
            raise Failure("invalid_request", "the body must be application/x-www-form-urlencoded")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Failure("invalid_request", "the body is not UTF-8") from None
        return parse_form(text)

    def query(self):
        return parse_form(urllib.parse.urlsplit(self.path).query)

    def route(self):
        return urllib.parse.urlsplit(self.path).path

    def authenticate_client(self, params):
        """RFC 6749 2.3.1: HTTP Basic (form-encoded id and secret) or both in the body, never both ways."""
        options = self.state.options
        header = self.headers.get("Authorization")
        in_body = "client_secret" in params
        if header is not None:
            if in_body:
                raise Failure("invalid_request", "more than one client authentication method")
            scheme, _, credentials = header.partition(" ")
            if scheme.lower() != "basic":
                raise Failure("invalid_client", "unsupported client authentication", 401)
            try:
                decoded = base64.b64decode(credentials.strip(), validate=True).decode("utf-8")
                raw_id, _, raw_secret = decoded.partition(":")
                client_id = urllib.parse.unquote_plus(raw_id)
                secret = urllib.parse.unquote_plus(raw_secret)
            except (ValueError, UnicodeDecodeError):
                raise Failure("invalid_client", "unreadable Basic credentials", 401) from None
            if "client_id" in params and params["client_id"] != client_id:
                raise Failure("invalid_request", "client_id differs from the authenticated client")
            method = "basic"
        elif in_body:
            client_id, secret, method = params.get("client_id"), params["client_secret"], "post"
        else:
            raise Failure("invalid_client", "no client authentication", 401)
        valid_id = client_id is not None and secrets.compare_digest(client_id.encode(), options.client_id.encode())
        valid_secret = secrets.compare_digest(secret.encode(), options.client_secret.encode())
        if not (valid_id and valid_secret):
            raise Failure("invalid_client", "unknown client or wrong secret", 401)
        return method

    # --- dispatch -------------------------------------------------------------------

    def do_GET(self):
        route = self.route()
        if route == "/authorize":
            self.authorize_request()
        elif route == "/auth-check":
            self.auth_check()
        elif route == "/admin/log":
            self.admin_log()
        elif route == "/.well-known/oauth-authorization-server":
            self.metadata()
        elif route in ("/token", "/introspect", "/revoke") or route.startswith("/admin/"):
            self.send(405, "", headers=(("Allow", "POST"),))
        else:
            self.send(404, "not found\n", "text/plain")

    def do_HEAD(self):
        self.do_GET()

    def do_POST(self):
        route = self.route()
        self.log_fields = {}
        try:
            if route == "/authorize":
                self.authorize_decision()
            elif route == "/token":
                self.token()
            elif route == "/introspect":
                self.introspect()
            elif route == "/revoke":
                self.revoke()
            elif route == "/admin/expire-access-tokens":
                self.admin_expire()
            elif route == "/admin/revoke":
                self.admin_revoke()
            else:
                self.body()
                self.send(404, "not found\n", "text/plain")
        except Failure as failure:
            self.state.event(endpoint=route.lstrip("/"), status=failure.status, error=failure.error,
                             **self.log_fields)
            self.send_failure(failure)

    # --- the authorization endpoint ---------------------------------------------------

    def error_page(self, status, message):
        self.send(status, "<!doctype html><title>Error</title><p>%s</p>\n" % html.escape(message),
                  "text/html; charset=utf-8")

    def redirect(self, uri, params):
        self.send(302, "", headers=(("Location", with_query(uri, params)), ("Cache-Control", "no-store")))

    def authorize_request(self):
        options, state = self.state.options, self.state
        try:
            params = self.query()
        except Failure as failure:
            state.event(endpoint="authorize", status=400, error=failure.error)
            return self.error_page(400, failure.description)
        shown = {k: v for k, v in params.items() if k not in ("state", "code_challenge")}
        client_id, redirect_uri = params.get("client_id"), params.get("redirect_uri")
        # RFC 6749 4.1.2.1: no redirect to an unverified URI; tell the user instead.
        if client_id != options.client_id:
            state.event(endpoint="authorize", status=400, error="invalid_client", params=shown)
            return self.error_page(400, "Error 401: invalid_client. The OAuth client was not found.")
        if redirect_uri is None or not is_loopback_redirect(redirect_uri):
            state.event(endpoint="authorize", status=400, error="redirect_uri_mismatch", params=shown)
            return self.error_page(400, "Error 400: redirect_uri_mismatch.")

        def fail(error, description):
            answer = {"error": error, "error_description": description}
            if "state" in params:
                answer["state"] = params["state"]
            state.event(endpoint="authorize", status=302, error=error, params=shown)
            self.redirect(redirect_uri, answer)

        if params.get("response_type") != "code":
            if "response_type" not in params:
                return fail("invalid_request", "response_type is required")
            return fail("unsupported_response_type", "only response_type=code")
        scope = params.get("scope")
        if scope is None:
            return fail("invalid_scope", "scope is required")
        scopes = scope.split(" ")
        if not all(SCOPE_TOKEN.match(s) for s in scopes) or not set(scopes) <= set(options.scopes):
            return fail("invalid_scope", "unknown scope")
        challenge, method = params.get("code_challenge"), params.get("code_challenge_method")
        # RFC 7636 4.4.1: PKCE is required here, and only S256 is supported.
        if challenge is None:
            return fail("invalid_request", "code_challenge is required")
        if method != "S256":
            return fail("invalid_request", "code_challenge_method must be S256")
        if not S256_CHALLENGE.match(challenge):
            return fail("invalid_request", "code_challenge is not a base64url SHA-256")
        request_id = secrets.token_urlsafe(16)
        with state.lock:
            state.pending[request_id] = dict(params, expires=time.time() + PENDING_LIFETIME)
        state.event(endpoint="authorize", status=200, params=shown)
        page = """<!doctype html>
<html><head><meta charset="utf-8"><title>Sign in - OAuth stand-in</title></head>
<body>
<h1>OAuth 2.0 stand-in (for tests)</h1>
<p id="request"><b>{client}</b> wants to access the account <b id="user">{user}</b>: {scope}</p>
<form method="post" action="/authorize">
<input type="hidden" name="request" value="{request}">
<button type="submit" name="decision" value="allow" id="allow">Allow</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form>
</body></html>
""".format(client=html.escape(client_id), user=html.escape(options.user), scope=html.escape(scope),
           request=request_id)
        self.send(200, page, "text/html; charset=utf-8", (("Cache-Control", "no-store"),))

    def authorize_decision(self):
        options, state = self.state.options, self.state
        params = self.form()
        with state.lock:
            pending = state.pending.pop(params.get("request", ""), None)
        if pending is None or pending["expires"] < time.time():
            state.event(endpoint="authorize-decision", status=400, error="unknown or expired consent request")
            return self.error_page(400, "This consent request is unknown or has expired: start again.")
        answer = {}
        if params.get("decision") != "allow":
            answer = {"error": "access_denied", "error_description": "the user denied access"}
            decision = "deny"
        else:
            code = "4/0A" + secrets.token_urlsafe(40)
            grant = {
                "client_id": pending["client_id"], "redirect_uri": pending["redirect_uri"],
                "challenge": pending["code_challenge"], "scope": pending["scope"], "user": options.user,
                "offline": pending.get("access_type") == "offline",
                "expires": time.time() + options.code_lifetime, "used": False, "revoked": False, "tokens": [],
            }
            with state.lock:
                state.codes[code] = grant
                state.codes_issued += 1
            answer = {"code": code, "scope": pending["scope"]}
            decision = "allow"
        if "state" in pending:
            answer["state"] = pending["state"]
        state.event(endpoint="authorize-decision", status=302, decision=decision)
        self.redirect(pending["redirect_uri"], answer)

    # --- the token endpoint -----------------------------------------------------------

    def token(self):
        state = self.state
        params = self.form()
        grant_type = params.get("grant_type")
        if grant_type is not None:
            self.log_fields["grant_type"] = grant_type
        method = self.authenticate_client(params)
        self.log_fields["client_auth"] = method
        if grant_type is None:
            raise Failure("invalid_request", "grant_type is required")
        if grant_type == "authorization_code":
            answer = self.code_grant(params)
        elif grant_type == "refresh_token":
            answer = self.refresh_grant(params)
        else:
            raise Failure("unsupported_grant_type", "only authorization_code and refresh_token")
        with state.lock:
            state.grants[grant_type] += 1
            if grant_type == "refresh_token":
                state.refreshes += 1
        state.event(endpoint="token", grant_type=grant_type, client_auth=method, status=200,
                    refresh_token_issued="refresh_token" in answer)
        self.send_json(200, answer)

    def code_grant(self, params):
        state = self.state
        for name in ("code", "redirect_uri", "code_verifier"):
            if name not in params:
                raise Failure("invalid_request", "%s is required" % name)
        with state.lock:
            grant = state.codes.get(params["code"])
            if grant is None:
                raise Failure("invalid_grant", "unknown authorization code")
            if grant["used"]:
                # RFC 6749 4.1.2: a code used twice revokes what was issued from it.
                state.revoke_grant(grant)
                raise Failure("invalid_grant", "authorization code already used")
            grant["used"] = True
            if grant["expires"] < time.time():
                raise Failure("invalid_grant", "authorization code expired")
            if grant["client_id"] != self.state.options.client_id:
                raise Failure("invalid_grant", "authorization code issued to another client")
            if params["redirect_uri"] != grant["redirect_uri"]:
                raise Failure("invalid_grant", "redirect_uri differs from the authorization request's")
            verifier = params["code_verifier"]
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii", "replace")).digest())
            if not VERIFIER.match(verifier) or not secrets.compare_digest(
                    digest.rstrip(b"=").decode(), grant["challenge"]):
                raise Failure("invalid_grant", "code_verifier does not match the code_challenge")
            return state.issue(grant, grant["scope"], grant["offline"])

    def refresh_grant(self, params):
        state = self.state
        if "refresh_token" not in params:
            raise Failure("invalid_request", "refresh_token is required")
        with state.lock:
            entry = state.refresh.get(params["refresh_token"])
            if entry is None or not entry["active"] or entry["grant"]["revoked"]:
                raise Failure("invalid_grant", "refresh token unknown, expired or revoked")
            if entry["client_id"] != state.options.client_id:
                raise Failure("invalid_grant", "refresh token issued to another client")
            scope = entry["scope"]
            if "scope" in params:
                asked = params["scope"].split(" ")
                if not set(asked) <= set(scope.split(" ")):
                    raise Failure("invalid_scope", "more scope than the grant has")
                scope = " ".join(asked)
            rotate = state.options.rotate_refresh_tokens
            answer = state.issue(entry["grant"], scope, rotate)
            if rotate:
                entry["active"] = False
            return answer

    # --- introspection, revocation, the check for nginx --------------------------------

    def introspect(self):
        state = self.state
        params = self.form()
        self.authenticate_client(params)
        if "token" not in params:
            raise Failure("invalid_request", "token is required")
        token = params["token"]
        answer = {"active": False}
        with state.lock:
            access = state.active_access(token)
            refresh = state.refresh.get(token)
            if access is not None:
                answer = {"active": True, "token_type": "Bearer", "exp": access["exp"], "iat": access["iat"],
                          "scope": access["scope"], "client_id": access["client_id"], "sub": access["user"],
                          "username": access["user"]}
            elif refresh is not None and refresh["active"] and not refresh["grant"]["revoked"]:
                answer = {"active": True, "token_type": "refresh_token", "iat": refresh["iat"],
                          "scope": refresh["scope"], "client_id": refresh["client_id"], "sub": refresh["user"],
                          "username": refresh["user"]}
        state.event(endpoint="introspect", status=200, active=answer["active"])
        self.send_json(200, answer)

    def revoke(self):
        state = self.state
        params = self.form()
        self.authenticate_client(params)
        if "token" not in params:
            raise Failure("invalid_request", "token is required")
        with state.lock:
            entry = state.access.get(params["token"]) or state.refresh.get(params["token"])
            if entry is not None:
                state.revoke_grant(entry["grant"])
        state.event(endpoint="revoke", status=200)
        self.send(200, "")

    def auth_check(self):
        state = self.state
        header = self.headers.get("Authorization") or ""
        scheme, _, token = header.partition(" ")
        token = token.strip()
        status, headers = 401, [("WWW-Authenticate", 'Bearer realm="contacts"')]
        if scheme.lower() == "bearer" and token:
            with state.lock:
                entry = state.active_access(token)
            required = state.options.required_scope
            if entry is None:
                headers = [("WWW-Authenticate", 'Bearer realm="contacts", error="invalid_token"')]
            elif required and required not in entry["scope"].split(" "):
                status = 403
                headers = [("WWW-Authenticate",
                            'Bearer realm="contacts", error="insufficient_scope", scope="%s"' % required)]
            else:
                status, headers = 200, [("X-User", entry["user"])]
        with state.lock:
            state.auth_checks[str(status)] = state.auth_checks.get(str(status), 0) + 1
        self.send(status, "", "text/plain", headers)

    def metadata(self):
        base = "http://127.0.0.1:%d" % self.state.options.port
        self.send_json(200, {
            "issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
            "introspection_endpoint": base + "/introspect", "revocation_endpoint": base + "/revoke",
            "response_types_supported": ["code"], "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"], "scopes_supported": self.state.options.scopes,
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        })

    # --- test controls --------------------------------------------------------------------

    def admin_expire(self):
        self.body()
        state = self.state
        with state.lock:
            now = int(time.time())
            for entry in state.access.values():
                entry["exp"] = min(entry["exp"], now)
        state.event(endpoint="admin/expire-access-tokens", status=204)
        self.send(204)

    def admin_revoke(self):
        self.body()
        state = self.state
        user = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query).get("user", [""])[0]
        with state.lock:
            grants = {id(e["grant"]): e["grant"] for e in list(state.refresh.values()) + list(state.access.values())
                      if e["user"] == user}
            for grant in grants.values():
                state.revoke_grant(grant)
        state.event(endpoint="admin/revoke", status=204, user=user, grants=len(grants))
        self.send(204)

    def admin_log(self):
        state = self.state
        with state.lock:
            value = {"events": list(state.events), "grants": dict(state.grants), "refreshes": state.refreshes,
                     "codes_issued": state.codes_issued, "auth_checks": dict(state.auth_checks)}
        self.send_json(200, value)


def main():
    parser = argparse.ArgumentParser(description="A stand-in for Google's OAuth 2.0 server, for tests only.")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--client-secret", required=True)
    parser.add_argument("--user", required=True, help="the account that consents")
    parser.add_argument("--access-lifetime", type=int, default=3600, help="seconds")
    parser.add_argument("--code-lifetime", type=int, default=60, help="seconds")
    parser.add_argument("--scopes", default=CARDDAV_SCOPE + " openid email",
                        help="the scopes a client may ask for, space-separated")
    parser.add_argument("--required-scope", default=CARDDAV_SCOPE, help="what /auth-check demands ('' for none)")
    parser.add_argument("--rotate-refresh-tokens", action="store_true")
    options = parser.parse_args()
    options.scopes = options.scopes.split()
    Handler.state = State(options)
    server = ThreadingHTTPServer(("127.0.0.1", options.port), Handler)
    server.daemon_threads = True
    sys.stderr.write("oauth stand-in listening on 127.0.0.1:%d\n" % options.port)
    sys.stderr.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
