"""`aurra dev`'s maintenance job for the tenants' own HNSW indexes, in a thread of its own, as the
maintenance function is in AWS: on request (POST /agent/imports/index) and every hour, so an
import's first index is replaced by the own indexes' graph as a deployed stage's would be."""

from __future__ import annotations

import threading

from aurra_core.runtime.observability import logger

# As the maintenance function's schedule (infra/constants.py MAINTENANCE_SCHEDULE_MINUTES).
SCHEDULE_S = 3600.0


class IndexBuilder:
    """Runs `tenant_indexes.maintain` as the database's owner each time it is woken, and every
    `SCHEDULE_S` otherwise; a wake during a run asks for one more run after it (the rows
    written meanwhile)."""

    def __init__(self, owner_url: str) -> None:
        self._url = owner_url
        self._wanted = threading.Event()
        self._thread = threading.Thread(target=self._run, name="aurra-index-builder", daemon=True)

    def start(self) -> IndexBuilder:
        self._thread.start()
        return self

    def wake(self) -> None:
        self._wanted.set()

    def _run(self) -> None:
        from aurra_core.runtime.config import get_config
        from aurra_core.storage.tenant_indexes import maintain

        while True:
            self._wanted.wait(SCHEDULE_S)
            self._wanted.clear()
            try:
                report = maintain(self._url, limit=get_config().tenant_index_limit)
            except Exception as exc:  # noqa: BLE001 - the next request (or `aurra tenant-indexes`) runs it again
                logger.warning("tenant index build failed", extra={"error": f"{type(exc).__name__}: {exc}"})
                continue
            for built in report.built:
                graph = f", {built['import_build']}" if "import_build" in built else ""
                print(
                    f"aurra dev: built tenant {built['tenant_id']}'s own index "
                    f"({built['memories']} memories, {built['seconds']} s{graph})",
                    flush=True,
                )
