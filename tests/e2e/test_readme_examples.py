"""README.md's "Run it locally", run as a newcomer runs it on a fresh clone.

Every fenced block of that section carries an HTML comment, `<!-- README example: NAME -->`,
that says what the block is: `server` (how the README starts the server for the examples),
a block this test runs, or `not run (why)`. The test starts the server with the README's own
command (`make dev`, with the environment the block sets) on a free port and a fresh data
directory, then runs the other blocks in the README's order in one bash, as a user's shell
would: the shell blocks as written, the Python snippet with the venv's python, the TypeScript
snippet with node against the package built by the README's own commands. It substitutes only
the dev key, the port and the scratch folder of the TypeScript example, and the shell's PATH
has no `.venv/bin` on it, as after `make dev`. It asserts what the README says they print.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sdk_checkout import typescript_sdk_exclusively

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
MARKER = re.compile(r"^<!-- README example: (?P<what>.+?) -->$")
EMACS = "User has been using Emacs as their daily editor, having moved away from Vim"
# The blocks the test runs, in the README's order; every other one says why it is not run.
RUN = [
    "server",
    "curl",
    "curl-conversation",
    "curl-async",
    "python",
    "typescript",
    "typescript-setup",
    "typescript-run",
]


@dataclass
class Block:
    name: str
    language: str
    text: str


def readme_blocks() -> list[Block]:
    """The fenced blocks of "## Run it locally", each with the name its marker gives it."""
    lines = README.read_text().splitlines()
    start = lines.index("## Run it locally")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("## "))
    blocks: list[Block] = []
    i = start
    while i < end:
        fence = re.match(r"^```(\w*)$", lines[i])
        if not fence:
            i += 1
            continue
        marker = MARKER.match(lines[i - 1])
        assert marker, (
            f"README.md:{i + 1}: a block of 'Run it locally' without a `<!-- README example: ... -->` "
            "line before it: name it for this test, or say why it is not run"
        )
        close = lines.index("```", i + 1)
        what = marker.group("what")
        assert what in RUN or what.startswith("not run ("), f"README.md:{i}: unknown marker {what!r}"
        blocks.append(Block(what, fence.group(1), "\n".join(lines[i + 1 : close]) + "\n"))
        i = close + 1
    return blocks


def test_the_readme_names_each_block() -> None:
    blocks = readme_blocks()
    assert [b.name for b in blocks if b.name in RUN] == RUN
    languages = {b.name: b.language for b in blocks}
    assert [languages[name] for name in RUN] == ["sh", "sh", "sh", "sh", "python", "ts", "sh", "sh"]


def stated_output(block: Block, comment: str) -> list[str]:
    """The lines a snippet says it prints: its comment lines after `<comment> prints:`."""
    lines = block.text.splitlines()
    at = lines.index(f"{comment} prints:")
    stated = [line.removeprefix(comment).removeprefix(" ") for line in lines[at + 1 :]]
    assert stated and all(line.startswith(comment) for line in lines[at + 1 :]), block.text
    return stated


# ---------------------------------------------------------------- the server, as the README starts it


@dataclass
class Server:
    port: int
    key: str
    process: subprocess.Popen[str]
    output: list[str]


def _free_of_venv(path: str) -> str:
    """PATH as in a new shell after `make dev`: the virtualenv's bin is not on it."""
    venv_bin = str(Path(sys.prefix) / "bin")
    return os.pathsep.join(p for p in path.split(os.pathsep) if p and Path(p) != Path(venv_bin))


def user_environment(**extra: str) -> dict[str, str]:
    """A new user's environment: nothing of this test session's AURRA_ settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AURRA_")}
    env["PATH"] = _free_of_venv(env.get("PATH", ""))
    return {**env, **extra}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    (start,) = [b for b in readme_blocks() if b.name == "server"]
    words = shlex.split(start.text, comments=True)
    env = dict(word.split("=", 1) for word in words if re.match(r"^[A-Z][A-Z0-9_]*=", word))
    assert words[len(env) :] == ["make", "dev"], start.text
    data_dir = tmp_path_factory.mktemp("readme") / ".aurra"
    venv = Path(sys.prefix)
    # The venv is this test's own; `-o` keeps make from reinstalling it should a file it
    # depends on be newer than its stamp.
    process = subprocess.Popen(
        [
            "make",
            "--no-print-directory",
            f"VENV={venv}",
            "-o",
            f"{venv}/.aurra-run",
            "dev",
            f"ARGS=--port 0 --data-dir {data_dir}",
        ],
        cwd=REPO,
        env=user_environment(**env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    output: list[str] = []
    key, port, deadline = None, None, time.monotonic() + 300
    while time.monotonic() < deadline and port is None:
        line = process.stdout.readline()
        if not line:
            break
        output.append(line)
        if found := re.search(r"dev API key: (\S+)", line):
            key = found.group(1)
        if found := re.search(r"listening on http://127\.0\.0\.1:(\d+)", line):
            port = int(found.group(1))
    try:
        assert key and port, "`make dev` did not start:\n" + "".join(output)
        assert "level2_enabled=True" in "".join(output), "".join(output)
        assert "embedder=minilm" in "".join(output), "".join(output)
        # How to call `aurra` when it is not on PATH: make dev says so, naming a real command.
        (hint,) = re.findall(r"the aurra command is (\S+);", "".join(output))
        assert os.access(REPO / hint, os.X_OK), hint
        yield Server(port, key, process, output)
    finally:
        os.killpg(process.pid, signal.SIGTERM)  # what a plain `kill` would do; aurra dev stops its database
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
        pid_file = data_dir / "pgdata" / "postmaster.pid"
        for _ in range(30):
            if not pid_file.exists():
                break
            time.sleep(1)
        else:  # the embedded PostgreSQL this test started outlived its server: stop it
            os.kill(int(pid_file.read_text().split()[0]), signal.SIGTERM)


# ---------------------------------------------------------------- the examples, in order


def json_lines(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def typescript_sdk() -> Iterator[Path]:
    """sdk/typescript, held while this module's examples build it and type-check against it."""
    with typescript_sdk_exclusively() as sdk:
        yield sdk


@pytest.fixture(scope="module")
def ran(server: Server, typescript_sdk: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every block, in the README's order, in one bash: {block name: what it printed}."""
    assert shutil.which("npm") and shutil.which("node"), "the TypeScript example needs Node.js >= 18 with npm"
    work = tmp_path_factory.mktemp("readme-run")
    example_dir = work / "aurra-example"

    def substitute(text: str) -> str:
        text = text.replace("$(cat .aurra/dev-key)", server.key).replace('"aurra_..."', f'"{server.key}"')
        text = text.replace("/tmp/aurra-example", str(example_dir))
        return re.sub(r"(localhost|127\.0\.0\.1):3000\b", rf"\g<1>:{server.port}", text)

    script = ["set -euo pipefail"]  # a command of the README that fails fails the test
    typescript = ""
    for block in readme_blocks():
        if block.name not in RUN or block.name == "server":
            continue
        script.append(f"echo '@@ {block.name}'")
        if block.name == "python":
            path = work / "readme_example.py"
            path.write_text(substitute(block.text))
            script.append(f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}")
        elif block.name == "typescript":
            typescript = substitute(block.text)  # saved where the README says, once the package is there
        elif block.name == "typescript-run":
            assert typescript, "the TypeScript snippet comes before the commands that run it"
            script.append(f"cat > {shlex.quote(str(example_dir / 'example.mjs'))} <<'AURRA_README_TS'")
            script.append(typescript + "AURRA_README_TS")
            script.append(substitute(block.text))
        else:
            script.append(substitute(block.text))
    result = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        cwd=REPO,
        env=user_environment(),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    report = f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr[-5000:]}"
    assert result.returncode == 0, report
    parts = re.split(r"^@@ (\S+)\n", result.stdout, flags=re.M)
    printed = dict(zip(parts[1::2], parts[2::2], strict=True))
    assert list(printed) == RUN[1:], report
    printed["typescript"] = typescript
    printed["_example_dir"] = str(example_dir)
    printed["_report"] = report
    return printed


def block(name: str) -> Block:
    (found,) = [b for b in readme_blocks() if b.name == name]
    return found


def test_curl_vim_to_emacs(ran: dict[str, str]) -> None:
    text = block("curl").text
    for claim in (
        '"classifier": "contradicts"',
        "# now: Emacs",
        "# April: Vim",
        "# the lineage: Vim, then Emacs",
    ):
        assert claim in text
    emacs, now, april, history, audit = json_lines(ran["curl"])
    vim_id = history["memory_id"]
    assert emacs["created"] is True and emacs["memory"]["content"] == EMACS
    assert emacs["auto_supersede"]["ran"] is True
    assert emacs["auto_supersede"]["decision"]["classifier"] == "contradicts"
    assert emacs["auto_supersede"]["supersession"]["superseded_id"] == vim_id
    assert [m["content"] for m in now["memories"]] == [EMACS]
    assert [(m["id"], m["content"]) for m in april["memories"]] == [(vim_id, "User uses Vim")]
    assert [m["content"] for m in history["chain"]] == ["User uses Vim", EMACS]
    (event,) = audit["events"]
    assert (event["type"], event["classifier"], event["superseded_id"]) == (
        "auto_supersede",
        "contradicts",
        vim_id,
    )
    assert event["reason"]


def test_curl_conversation(ran: dict[str, str]) -> None:
    text = block("curl-conversation").text
    for claim in (
        '"User moved to Berlin last month"',
        '"User switched from Vim to Emacs"',
        '"facts_found": 2',
    ):
        assert claim in text
    written, alice = json_lines(ran["curl-conversation"])
    facts = [(f["memory"]["content"], f["memory"]["user_id"]) for f in written["facts"]]
    assert facts == [
        ("User moved to Berlin last month", "alice"),
        ("User switched from Vim to Emacs", "alice"),
    ]
    assert written["extraction"]["extractor"] == "rules" and written["extraction"]["facts_found"] == 2
    assert sorted(m["content"] for m in alice["memories"]) == sorted(content for content, _ in facts)
    assert {m["user_id"] for m in alice["memories"]} == {"alice"}


def test_curl_async(ran: dict[str, str]) -> None:
    text = block("curl-async").text
    for claim in ('"status": "pending"', "# now: only Emacs", "bob's Vim retired"):
        assert claim in text
    written, bob, superseded = json_lines(ran["curl-async"])
    block_ = written["auto_supersede"]
    assert written["created"] is True and block_["status"] == "pending" and block_["job_id"]
    assert block_["ran"] is False and block_["supersession"] is None
    assert [m["content"] for m in bob["memories"]] == ["bob switched to Emacs"]
    last = superseded["events"][-1]
    assert last["user_id"] == "bob" and last["data"]["superseded_by"] == written["memory"]["id"]


def test_python_sdk(ran: dict[str, str]) -> None:
    stated = stated_output(block("python"), "#")
    assert stated[:2] == ["contradicts", "User uses Vim"]
    assert ran["python"].splitlines() == stated, ran["_report"]


def test_typescript_sdk(ran: dict[str, str], typescript_sdk: Path) -> None:
    stated = stated_output(block("typescript"), "//")
    assert stated == ["contradicts", "User uses Vim"]
    assert ran["typescript-run"].splitlines() == stated, ran["_report"]
    # And it is TypeScript that compiles against the package's own types.
    example_dir = Path(ran["_example_dir"])
    (example_dir / "example.mts").write_text(ran["typescript"])
    (example_dir / "tsconfig.json").write_text(
        json.dumps(
            {
                "compilerOptions": {
                    "module": "nodenext",
                    "moduleResolution": "nodenext",
                    "target": "ES2022",
                    "lib": ["ES2022", "DOM"],
                    "types": [],
                    "strict": True,
                    "noEmit": True,
                },
                "files": ["example.mts"],
            }
        )
    )
    tsc = subprocess.run(
        [str(typescript_sdk / "node_modules" / ".bin" / "tsc"), "-p", "tsconfig.json"],
        cwd=example_dir,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert tsc.returncode == 0, tsc.stdout + tsc.stderr
