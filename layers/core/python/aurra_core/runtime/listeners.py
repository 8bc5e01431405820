"""Callables of this process told when something happened (`aurra dev`'s worker threads): what
a queue or a function invoke does in AWS. Safe to change from any thread."""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

L = TypeVar("L")


class Listeners(Generic[L]):
    def __init__(self) -> None:
        self._listeners: list[L] = []
        self._lock = threading.Lock()

    def add(self, listener: L) -> None:
        with self._lock:
            self._listeners.append(listener)

    def remove(self, listener: L) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def current(self) -> list[L]:
        """The listeners now (a copy: one may be removed while they are called)."""
        with self._lock:
            return list(self._listeners)
