"""The local HTTP server of `aurra dev`: every request goes through the local gateway."""

from __future__ import annotations

import base64
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from aurra_local import gateway

# API Gateway's own payload limit is 10 MB; the handlers enforce the API's smaller one.
MAX_REQUEST_BYTES = 10 * 1024 * 1024


SWAGGER_PAGE = """<!doctype html><html><head><title>Aurra API (local)</title>
<link rel="stylesheet" href="https://unpkg.com/swagger-ui-dist@5/swagger-ui.css"></head>
<body><div id="ui"></div><script src="https://unpkg.com/swagger-ui-dist@5/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({url: "/openapi.json", dom_id: "#ui"});</script></body></html>"""


def _openapi() -> dict:
    from aurra_local import openapi

    return {"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": openapi.render()}


# Served by `aurra dev` alone: a deployed stage has no Swagger UI.
LOCAL_PAGES = {
    "/openapi.json": _openapi,
    "/docs": lambda: {"statusCode": 200, "headers": {"Content-Type": "text/html"}, "body": SWAGGER_PAGE},
}


class _Handler(BaseHTTPRequestHandler):
    server_version = "aurra-dev"
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: without this, Nagle holds the body ~40 ms.
    disable_nagle_algorithm = True

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_REQUEST_BYTES:
            self._send(
                {
                    "statusCode": 413,
                    "headers": {"Content-Type": "application/json"},
                    "body": '{"error": {"code": "payload_too_large", "message": "request too large", "details": []}}',
                },
                close=True,
            )
            return
        body = self.rfile.read(length) if length else None
        if self.command == "GET" and self.path in LOCAL_PAGES:
            self._send(LOCAL_PAGES[self.path]())
            return
        try:
            response = gateway.handle(self.command, self.path, dict(self.headers.items()), body)
        except Exception:  # noqa: BLE001 - API Gateway answers 502 when an integration crashes
            self.log_error("integration failed:\n%s", sys.exc_info()[1])
            response = {
                "statusCode": 502,
                "headers": {"Content-Type": "application/json"},
                "body": '{"error": {"code": "internal", "message": "internal error", "details": []}}',
            }
        self._send(response)

    def _send(self, response: dict, close: bool = False) -> None:
        payload = response.get("body") or ""
        data = base64.b64decode(payload) if response.get("isBase64Encoded") else payload.encode()
        self.send_response(response.get("statusCode", 200))
        headers = dict(response.get("headers") or {})
        for name, values in (response.get("multiValueHeaders") or {}).items():
            headers[name] = ", ".join(values)
        for name, value in headers.items():
            if name.lower() not in ("content-length", "connection"):
                self.send_header(name, str(value))
        self.send_header("Content-Length", str(len(data)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(data)

    def __getattr__(self, name: str):
        # Every method reaches the gateway (which answers 404 for routes it does not have),
        # as API Gateway does, rather than the base class's 501.
        if name.startswith("do_"):
            return self._serve
        raise AttributeError(name)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        sys.stderr.write("%s %s\n" % (self.log_date_time_string(), format % args))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # many clients connecting at once are queued, not refused


def serve(host: str, port: int) -> ThreadingHTTPServer:
    return _Server((host, port), _Handler)
