"""`aurra dev`'s maintenance job for the tenants' own HNSW indexes, run on request
(POST /agent/imports/index) in a thread of its own, as the maintenance function is in AWS."""

from __future__ import annotations

import threading

from aurra_core.runtime.observability import logger


class IndexBuilder:
    """Runs `tenant_indexes.maintain` as the database's owner each time it is woken; a wake
    during a run asks for one more run after it (the rows written meanwhile)."""

    def __init__(self, owner_url: str) -> None:
        self._url = owner_url
        self._wanted = threading.Event()
        self.runs = 0
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
            self._wanted.wait()
            self._wanted.clear()
            try:
                report = maintain(self._url, limit=get_config().tenant_index_limit)
            except Exception as exc:  # noqa: BLE001 - the next request (or `aurra tenant-indexes`) runs it again
                logger.warning("tenant index build failed", extra={"error": f"{type(exc).__name__}: {exc}"})
                continue
            self.runs += 1
            for built in report.built:
                print(
                    f"aurra dev: built tenant {built['tenant_id']}'s own index "
                    f"({built['memories']} memories, {built['seconds']} s)",
                    flush=True,
                )
