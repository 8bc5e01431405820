"""The Lambda context of the invocation in progress (per thread, for `aurra dev`), so code deep
in the layer can ask how much time is left without importing the HTTP glue."""

from __future__ import annotations

import threading
from typing import Any

_current = threading.local()


def set_context(context: Any) -> None:
    _current.context = context


def get_context() -> Any:
    return getattr(_current, "context", None)
