"""`aurra dev` started as a new user would start it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import psycopg
import pytest
from dev_server import REPO, start_dev_server
from pgvector import Vector

from aurra_core.embedders import LexicalEmbedder

pytestmark = pytest.mark.integration


def test_dev_on_own_database_in_a_fresh_directory(pg_url: str, tmp_path: Path) -> None:
    """With AURRA_DATABASE_URL set no embedded server makes the data directory; `aurra dev`
    still keeps its dev key there, creating the directory itself."""
    data_dir = tmp_path / "fresh" / ".aurra"
    server = start_dev_server(pg_url, data_dir, cwd=tmp_path)
    try:
        assert (data_dir / "dev-key").read_text().strip() == server.dev_key
        response = httpx.get(
            f"{server.base_url}/agent/settings", headers={"Authorization": f"Bearer {server.dev_key}"}
        )
        assert response.status_code == 200, response.text
    finally:
        server.process.terminate()
        server.process.wait(10)


def test_dev_on_a_port_already_taken_says_so_in_one_line(pg_url: str, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "aurra_local.cli",
                "dev",
                "--port",
                str(port),
                "--data-dir",
                str(tmp_path),
            ],
            cwd=REPO,
            env={**os.environ, "AURRA_DATABASE_URL": pg_url},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert result.returncode == 1, result
    assert f"127.0.0.1:{port} is already in use" in result.stderr and "--port" in result.stderr
    assert "Traceback" not in result.stderr, result.stderr


def _spawned_children(pid: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if parent == pid and b"spawn_main" in command:
            children.append(int(entry.name))
    return children


def test_dev_classifies_in_worker_processes_and_supersedes_the_same(
    pg_url: str, tmp_path: Path, new_key
) -> None:
    """`--classifier-processes 2`: the rules classifier's processes start with the first
    classification, and each user's switch supersedes that user's own fact; a batch's facts
    are embedded there as in the server; they stop with the server."""
    server = start_dev_server(pg_url, tmp_path / ".aurra", "--classifier-processes", "2")
    try:
        # a tenant of its own: the dev key's is shared by every server of the session's database
        _, raw = new_key()
        client = httpx.Client(
            base_url=server.base_url, headers={"Authorization": f"Bearer {raw}"}, timeout=30
        )
        users = [f"processes-{i}" for i in range(6)]
        for user in users:
            client.post(
                "/agent/memories", json={"content": "User uses Vim", "user_id": user}
            ).raise_for_status()
        for user in users:
            written = client.post(
                "/agent/memories",
                json={"content": "User switched to Emacs", "user_id": user, "auto_supersede": True},
            )
            assert written.status_code == 201, written.text
            assert written.json()["auto_supersede"]["supersession"] is not None, written.text
            current = client.get("/agent/memories", params={"user_id": user}).json()["memories"]
            assert [m["content"] for m in current] == ["User switched to Emacs"]
        # A batch's facts are embedded in the same processes: each stored vector is the lexical
        # embedder's own for its text.
        facts = ["User lives in Lisbon", "User drinks tea every morning", "User's team has 12 engineers"]
        batch = client.post(
            "/agent/memories/batch",
            json={"facts": [{"content": c, "user_id": "processes-batch"} for c in facts]},
        )
        assert batch.status_code == 201, batch.text
        ids = [r["memory"]["id"] for r in batch.json()["results"]]
        with psycopg.connect(pg_url) as conn:
            stored = dict(
                conn.execute(
                    "SELECT content, embedding::text FROM memory_versions WHERE memory_id = ANY(%s::uuid[])",
                    (ids,),
                ).fetchall()
            )
        embedder = LexicalEmbedder(384)
        assert {c: Vector.from_text(v) for c, v in stored.items()} == {c: embedder.embed(c) for c in facts}
        assert len(_spawned_children(server.process.pid)) >= 2
        client.close()
    finally:
        server.process.terminate()
        server.process.wait(10)
    assert not _spawned_children(server.process.pid)
