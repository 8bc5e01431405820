"""The soak test's own PostgreSQL: it is stopped, restarted and has its connections cut, so it
is never the session's shared server. `db` is overridden here, so the shared `new_key`
fixture makes the soak's keys (and tenants) in this database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from soak_infra import SoakPostgres


@pytest.fixture(scope="module")
def soak_pg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SoakPostgres]:
    from aurra_local.environment import apply_local_defaults

    apply_local_defaults()
    pg = SoakPostgres(tmp_path_factory.mktemp("soak-pg") / "data")
    try:
        from aurra_core.runtime.config import get_config
        from aurra_core.storage.migrate import apply_migrations

        apply_migrations(pg.url, get_config().embedding_dim)
        yield pg
    finally:
        pg.close()


@pytest.fixture
def db(soak_pg: SoakPostgres):
    from aurra_core.storage.db import Database

    database = Database(soak_pg.url, max_size=1)
    yield database
    database.close()
