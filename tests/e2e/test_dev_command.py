"""`aurra dev` started as a new user would start it."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from dev_server import start_dev_server

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
