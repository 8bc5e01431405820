"""The console's static files, as `aurra dev` serves them at /console/.

The same files are what the CDK app deploys to S3 behind CloudFront, with the same security
headers (console/security-headers.json), so the console is tested locally under the policy it
runs under in AWS: no inline script or style, and the API on the same origin.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import mimetypes
from functools import cache
from pathlib import Path
from typing import Any


def _console_dir() -> Path:
    """The checkout's console/ folder; installed from a wheel, the package data `aurra_console`
    (a folder of static files, no Python: the same files the CDK app uploads to S3)."""
    checkout = Path(__file__).resolve().parent.parent / "console"
    if checkout.is_dir():
        return checkout
    spec = importlib.util.find_spec("aurra_console")
    if spec is None or not spec.submodule_search_locations:
        return checkout  # nothing to serve: every path answers 404
    return Path(next(iter(spec.submodule_search_locations))).resolve()


CONSOLE_DIR = _console_dir()
PREFIX = "/console"
HEADERS_FILE = "security-headers.json"
# Only what a browser needs; the headers file is configuration, not content.
SERVED_SUFFIXES = {".html", ".js", ".css", ".svg", ".png"}
CONTENT_TYPES = {".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}


@cache
def security_headers() -> dict[str, str]:
    headers = CONSOLE_DIR / HEADERS_FILE
    return dict(json.loads(headers.read_text())) if headers.is_file() else {}


def is_console_path(path: str) -> bool:
    return path == PREFIX or path.startswith(PREFIX + "/")


def _file(relative: str) -> Path | None:
    """The file under the console folder that `relative` names, never anything outside it."""
    if any(part in ("", ".", "..") for part in relative.split("/")):
        return None
    try:
        candidate = (CONSOLE_DIR / relative).resolve()
        if CONSOLE_DIR not in candidate.parents or candidate.suffix not in SERVED_SUFFIXES:
            return None
        return candidate if candidate.is_file() else None
    except (OSError, ValueError):  # a NUL in the name, a name too long for the file system
        return None


def response(path: str) -> dict[str, Any]:
    """A proxy-style response for a GET under /console (path without its query string)."""
    if path == PREFIX:
        # Relative asset URLs in index.html resolve against the folder, so the folder it is.
        return {"statusCode": 308, "headers": {"Location": PREFIX + "/"}, "body": ""}
    relative = path[len(PREFIX) + 1 :] or "index.html"
    found = _file(relative)
    if found is None:
        return {
            "statusCode": 404,
            "headers": {"Content-Type": "application/json", **security_headers()},
            "body": json.dumps({"error": {"code": "not_found", "message": "no such file", "details": []}}),
        }
    content_type = CONTENT_TYPES.get(found.suffix) or mimetypes.guess_type(found.name)[0] or "text/plain"
    if content_type.startswith("text/") and "charset" not in content_type:
        content_type += "; charset=utf-8"
    return {
        "statusCode": 200,
        # no-cache: revalidated on every load, so a changed console is never half old, half new
        "headers": {"Content-Type": content_type, "Cache-Control": "no-cache", **security_headers()},
        "body": base64.b64encode(found.read_bytes()).decode(),
        "isBase64Encoded": True,
    }
