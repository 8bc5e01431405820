"""One test at a time in sdk/typescript: its `npm ci` replaces node_modules, which another test
running beside it (`make test` runs the suite in parallel workers) may be reading."""

from __future__ import annotations

import fcntl
import hashlib
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SDK_TYPESCRIPT = REPO / "sdk" / "typescript"


@contextmanager
def typescript_sdk_exclusively() -> Iterator[Path]:
    """Hold the checkout's sdk/typescript for the block; a lock file per checkout, outside it."""
    name = hashlib.sha256(str(SDK_TYPESCRIPT).encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"aurra-sdk-typescript-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield SDK_TYPESCRIPT
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
