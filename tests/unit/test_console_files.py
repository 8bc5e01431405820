"""The console's static files and how `aurra dev` serves them: same-origin only, no inline code
(so the strict CSP holds), nothing outside the console folder, and a small page."""

from __future__ import annotations

import base64
import gzip
import re
from html.parser import HTMLParser

import pytest

from aurra_local import console

INDEX = console.CONSOLE_DIR / "index.html"
SCRIPTS = sorted(console.CONSOLE_DIR.glob("*.js"))
# The whole console, uncompressed; a framework or a bundled library would not fit.
PAGE_WEIGHT_BUDGET = 100_000


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.script_text = ""
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.script_text += data.strip()


def _index() -> _Tags:
    parser = _Tags()
    parser.feed(INDEX.read_text())
    return parser


def test_the_page_has_no_inline_script_style_or_handler() -> None:
    parsed = _index()
    assert parsed.script_text == ""
    scripts = [attrs for tag, attrs in parsed.tags if tag == "script"]
    assert scripts and all(attrs.get("src") for attrs in scripts)
    assert not [tag for tag, _ in parsed.tags if tag == "style"]
    for tag, attrs in parsed.tags:
        assert "style" not in attrs, tag
        assert not [name for name in attrs if name.startswith("on")], tag


def test_everything_the_page_loads_is_in_the_console_folder() -> None:
    parsed = _index()
    references = [
        attrs.get("src") or attrs.get("href")
        for tag, attrs in parsed.tags
        if tag in ("script", "link", "img")
    ]
    assert references
    for reference in references:
        assert reference and not re.match(r"^[a-z]+:|^//|^/", reference), reference
        assert (console.CONSOLE_DIR / reference).is_file(), reference
    imports = {name for script in SCRIPTS for name in re.findall(r'from "\./([\w.]+)"', script.read_text())}
    assert imports and all((console.CONSOLE_DIR / name).is_file() for name in imports)


def test_scripts_never_turn_text_into_markup_or_code() -> None:
    # Memory content is untrusted; it only ever becomes text nodes. The CSP's Trusted Types
    # requirement enforces the same in the browser.
    for script in SCRIPTS:
        text = script.read_text()
        for sink in (
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
            "new Function",
        ):
            assert sink not in text, f"{script.name} uses {sink}"
        # and never logs (the API key must never reach a console)
        assert not re.search(r"\bconsole\.(log|info|warn|error|debug)", text), script.name


def test_the_content_security_policy_is_strict() -> None:
    policy = dict(
        [*part.split(" ", 1), ""][:2]
        for part in (p.strip() for p in console.security_headers()["Content-Security-Policy"].split(";"))
    )
    assert policy["default-src"] == "'none'"
    for directive in ("script-src", "style-src", "connect-src", "img-src"):
        assert policy[directive] == "'self'", directive
    assert policy["frame-ancestors"] == "'none'"
    assert "unsafe" not in console.security_headers()["Content-Security-Policy"]
    assert policy["require-trusted-types-for"] == "'script'"


def test_index_is_served_with_the_security_headers() -> None:
    response = console.response("/console/")
    assert response["statusCode"] == 200
    headers = response["headers"]
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["Content-Security-Policy"] == console.security_headers()["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert base64.b64decode(response["body"]) == INDEX.read_bytes()


def test_the_folder_url_redirects_so_relative_urls_resolve() -> None:
    response = console.response("/console")
    assert response["statusCode"] == 308
    assert response["headers"]["Location"] == "/console/"


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/console/app.js", "text/javascript; charset=utf-8"),
        ("/console/console.css", "text/css; charset=utf-8"),
    ],
)
def test_assets_have_their_types(path: str, content_type: str) -> None:
    assert console.response(path)["headers"]["Content-Type"] == content_type


@pytest.mark.parametrize(
    "path",
    [
        "/console/../pyproject.toml",
        "/console/../aurra_local/console.py",
        "/console//etc/passwd",
        "/console/security-headers.json",
        "/console/missing.js",
        "/console/app.js/",
        # Names the file system refuses: a 404 like any other, not a 500.
        "/console/\x00",
        "/console/app\x00.js",
        "/console/" + "a" * 5000 + ".js",
    ],
)
def test_nothing_else_is_served(path: str) -> None:
    response = console.response(path)
    assert response["statusCode"] == 404
    assert '"not_found"' in response["body"]


def test_console_paths() -> None:
    assert console.is_console_path("/console")
    assert console.is_console_path("/console/app.js")
    assert not console.is_console_path("/consoles")
    assert not console.is_console_path("/agent/memories")


def test_page_weight() -> None:
    files = [p for p in console.CONSOLE_DIR.iterdir() if p.suffix in console.SERVED_SUFFIXES]
    raw = sum(p.stat().st_size for p in files)
    compressed = sum(len(gzip.compress(p.read_bytes(), 9)) for p in files)
    print(f"console: {len(files)} files, {raw} bytes, {compressed} bytes gzipped")
    assert raw < PAGE_WEIGHT_BUDGET
