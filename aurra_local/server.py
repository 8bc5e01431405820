"""The local HTTP server of `aurra dev`: waitress serves HTTP, every request goes through the
local gateway.

waitress does the framing a hand-written server got wrong: chunked bodies are read, a bad or
negative Content-Length and a malformed request line are refused, headers and bodies are
bounded, a slow client never holds a worker thread (bodies are buffered before dispatch) and
an idle connection is closed after a timeout. Its own refusals are answered with the API's
JSON error envelope, and no Server header names the software or its version.
"""

from __future__ import annotations

import base64
import errno
import json
import sys
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from functools import cache
from importlib.resources import files
from typing import Any

from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer, create_server
from waitress.task import ErrorTask

from aurra_core.api.handlers import RESPONSE_HEADERS
from aurra_core.runtime.observability import redact_query
from aurra_local import console, gateway

# API Gateway's own payload limit is 10 MB; the handlers enforce the API's smaller one.
MAX_REQUEST_BYTES = 10 * 1024 * 1024
MAX_HEADER_BYTES = 32 * 1024
# An idle or stalled connection is closed after this long.
CHANNEL_TIMEOUT_S = 30
# Concurrent requests in the handlers (the database pool queues what is beyond its size).
THREADS = 16

StartResponse = Callable[[str, list[tuple[str, str]]], Any]

_ERROR_CODES = {413: "payload_too_large", 500: "internal"}


class _JsonErrorTask(ErrorTask):
    """waitress's own refusals (bad framing, oversized headers or body) in the API's envelope."""

    def execute(self) -> None:
        error = self.request.error
        code = _ERROR_CODES.get(error.code, "bad_request")
        message = f"{error.reason.lower()}: {error.body}" if error.body else error.reason.lower()
        body = json.dumps({"error": {"code": code, "message": message, "details": []}}).encode()
        self.status = f"{error.code} {error.reason}"
        self.response_headers.extend([("Content-Type", "application/json"), *RESPONSE_HEADERS.items()])
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class _Channel(HTTPChannel):
    error_task_class = _JsonErrorTask


# ---------------------------------------------------------------- local pages: /docs, /openapi.json

# Swagger UI from the installed swagger-ui-py package, never from a CDN; the page runs no
# inline script, so the policy below can allow scripts from this origin alone.
SWAGGER_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Aurra API (local)</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>"""
# No validator badge: it would load an image from swagger.io, which the policy refuses anyway.
SWAGGER_INIT = 'SwaggerUIBundle({url: "/openapi.json", dom_id: "#ui", validatorUrl: null});\n'
DOCS_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SWAGGER_ASSETS = {"/docs/swagger-ui.css": "text/css", "/docs/swagger-ui-bundle.js": "text/javascript"}


@cache
def _asset(path: str) -> bytes:
    return (files("swagger_ui") / "static" / path.removeprefix("/docs/")).read_bytes()


def _page(content_type: str, body: bytes | str) -> tuple[str, dict[str, str], bytes]:
    data = body.encode() if isinstance(body, str) else body
    headers = {"Content-Type": content_type, **RESPONSE_HEADERS}
    if content_type.startswith("text/html"):
        headers["Content-Security-Policy"] = DOCS_POLICY
    return "200 OK", headers, data


def local_page(path: str) -> tuple[str, dict[str, str], bytes] | None:
    """What `aurra dev` serves beside the API (a deployed stage has no Swagger UI)."""
    if path == "/openapi.json":
        from aurra_local import openapi

        return _page("application/json", openapi.render())
    if path == "/docs":
        return _page("text/html; charset=utf-8", SWAGGER_PAGE)
    if path == "/docs/init.js":
        return _page("text/javascript", SWAGGER_INIT)
    if path in SWAGGER_ASSETS:
        return _page(SWAGGER_ASSETS[path], _asset(path))
    if console.is_console_path(path):
        return _from_proxy(console.response(path))
    return None


# ---------------------------------------------------------------- the WSGI application


def _headers(environ: dict[str, Any]) -> dict[str, str]:
    headers = {}
    for name, value in environ.items():
        if name.startswith("HTTP_"):
            headers[name[5:].replace("_", "-").title()] = value
    for name in ("CONTENT_TYPE", "CONTENT_LENGTH"):
        if environ.get(name):
            headers[name.replace("_", "-").title()] = environ[name]
    return headers


def _status_line(status: int) -> str:
    from http import HTTPStatus

    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def _from_proxy(response: dict[str, Any]) -> tuple[str, dict[str, str], bytes]:
    """An API Gateway proxy response as status line, headers and body."""
    payload = response.get("body") or ""
    data = base64.b64decode(payload) if response.get("isBase64Encoded") else payload.encode()
    out = {str(k): str(v) for k, v in (response.get("headers") or {}).items()}
    for name, values in (response.get("multiValueHeaders") or {}).items():
        out[name] = ", ".join(str(v) for v in values)
    for name in [n for n in out if n.lower() in ("content-length", "connection", "server")]:
        del out[name]
    return _status_line(int(response.get("statusCode", 200))), out, data


class Application:
    """The WSGI application: a request in, the local gateway's proxy response out."""

    def __init__(self, log_search_text: bool = False) -> None:
        self.log_search_text = log_search_text

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        started = time.perf_counter()
        method = environ["REQUEST_METHOD"]
        target = environ.get("REQUEST_URI") or environ.get("PATH_INFO") or "/"
        page = local_page(environ.get("PATH_INFO", "")) if method in ("GET", "HEAD") else None
        if page is not None:
            status, headers, data = page
        else:
            body = environ["wsgi.input"].read() or None
            status, headers, data = self._gateway(method, target, _headers(environ), body)
        headers["Content-Length"] = str(len(data))
        start_response(status, list(headers.items()))
        self._log(method, environ, status, started)
        return [b""] if method == "HEAD" else [data]

    def _gateway(
        self, method: str, target: str, headers: dict[str, str], body: bytes | None
    ) -> tuple[str, dict[str, str], bytes]:
        try:
            response = gateway.handle(method, target, headers, body)
        except Exception as exc:  # noqa: BLE001 - API Gateway answers 502 when an integration crashes
            sys.stderr.write(f"integration failed: {type(exc).__name__}\n")
            response = {
                "statusCode": 502,
                "headers": {"Content-Type": "application/json"},
                "body": '{"error": {"code": "internal", "message": "internal error", "details": []}}',
            }
        return _from_proxy(response)

    def _log(self, method: str, environ: dict[str, Any], status: str, started: float) -> None:
        # The access log: the query with keys and (unless asked) search text redacted.
        query = redact_query(environ.get("QUERY_STRING", ""), keep_search_text=self.log_search_text)
        path = environ.get("PATH_INFO", "") + (f"?{query}" if query else "")
        elapsed = (time.perf_counter() - started) * 1000
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        sys.stderr.write(f"{now} {method} {path} {status.split(' ', 1)[0]} {elapsed:.1f}ms\n")


def _create_server_or_exit(
    application: Application, *, host: str, port: int, **options: Any
) -> BaseWSGIServer:
    """waitress's create_server; a port already taken ends the command with one line that says
    what to do, not a traceback."""
    try:
        return create_server(application, host=host, port=port, **options)
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
        raise SystemExit(
            f"aurra dev: {host}:{port} is already in use (another aurra dev?): stop what listens "
            f'there, or choose another port with --port (make dev ARGS="--port 8080")'
        ) from None


def serve(
    host: str, port: int, *, log_search_text: bool = False, timeout_s: int = CHANNEL_TIMEOUT_S
) -> BaseWSGIServer:
    """The server, bound and listening; `run()` serves until `close()`. A connection idle or
    stalled mid-request for `timeout_s` is closed."""
    server = _create_server_or_exit(
        Application(log_search_text),
        host=host,
        port=port,
        threads=THREADS,
        ident=None,  # no Server header
        channel_timeout=timeout_s,
        cleanup_interval=max(1, min(timeout_s, 30)),
        max_request_header_size=MAX_HEADER_BYTES,
        max_request_body_size=MAX_REQUEST_BYTES,
        backlog=1024,  # many clients connecting at once are queued, not refused
        clear_untrusted_proxy_headers=True,
    )
    server.channel_class = _Channel
    return server
