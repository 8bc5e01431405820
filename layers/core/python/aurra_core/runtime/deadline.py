"""Time limits of the write path: when a call is abandoned, and how work below it sees its end.

Two mechanisms, because neither alone bounds every classifier and extractor:

- `call_until(end, call, error)` runs `call` in a daemon thread and waits for it until `end`
  (time.monotonic()); past it the caller goes on without it and `error` is raised. Whatever the
  call does (a model that never answers, a retry sleeping on a 429's retry-after, a loop), the
  caller is back on time. But an abandoned thread runs on: a model call waits on its socket
  until its client's own timeout ends it, costing nothing, while CPU-bound work would go on
  burning a core (and, in Lambda, resume in the next invocation).
- So `call_until` also sets the deadline where that work can see it: `check()` raises
  `DeadlinePassed` once it has passed. The offline classifier and extractor call it in their
  loops, so their thread stops within one step of the deadline (milliseconds: their cost is
  linear in their input, bench/classifier_cost.py) instead of running to the end. Work that
  does so (the rules classifier's `stops_at_deadline`) may run in the caller's thread under
  `until(end)` instead: back within one step of the deadline, without a thread to start and
  wait for, which on a loaded host costs more than the classification itself.

The deadline is a context variable: each thread of a messages write has its own, and
`call_until` hands it to the thread it starts. `until(end)` sets it for the work in its block,
never later than an enclosing one.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TypeVar

T = TypeVar("T")

_END: contextvars.ContextVar[float | None] = contextvars.ContextVar("aurra_deadline", default=None)


class DeadlinePassed(TimeoutError):
    """The work's deadline has passed: `check()` says so where the work can stop."""


def end() -> float | None:
    """The current deadline (time.monotonic()), or None when there is none."""
    return _END.get()


def remaining() -> float | None:
    """Seconds left before the current deadline (0 once passed), or None when there is none."""
    current = _END.get()
    return None if current is None else max(0.0, current - time.monotonic())


def check() -> None:
    """Raise DeadlinePassed when the current deadline has passed; cheap enough for inner loops."""
    current = _END.get()
    if current is not None and time.monotonic() > current:
        raise DeadlinePassed("the deadline passed")


@contextmanager
def until(deadline: float) -> Iterator[None]:
    """Within the block, `check()` raises once `deadline` (time.monotonic()) has passed, or the
    enclosing deadline if that is earlier."""
    current = _END.get()
    token = _END.set(deadline if current is None else min(current, deadline))
    try:
        yield
    finally:
        _END.reset(token)


def model_call_limit(timeout_s: float) -> float:
    """The wall-clock limit of one model call: two attempts and the SDK's short backoff. The SDK's
    own timeout is per read and its retry sleeps as long as a 429's retry-after says, so neither
    bounds the whole call."""
    return 2 * timeout_s + 1.0


def call_until(deadline: float, call: Callable[[], T], error: type[Exception], what: str = "the call") -> T:
    """`call()`, waited for until `deadline` (time.monotonic(), or the current deadline if that is
    earlier), with that deadline set for it (`check()`). Past it the caller goes on without it:
    the daemon thread ends by itself (at its next `check()`, or when its own timeout ends it) and
    nothing it returns is used; `error` is raised, saying `what` did not answer. What `call()`
    raises is raised here."""
    current = _END.get()
    deadline = deadline if current is None else min(current, deadline)
    allowed = max(0.0, deadline - time.monotonic())
    context = contextvars.copy_context()
    done = threading.Event()
    values: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with until(deadline):
                values.append(call())
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            errors.append(exc)
        finally:
            done.set()

    threading.Thread(target=context.run, args=(run,), name="aurra-bounded-call", daemon=True).start()
    if not done.wait(max(0.0, deadline - time.monotonic())):
        raise error(f"{what} did not answer within {allowed:.3g} s")
    if errors:
        raise errors[0]
    return values[0]


def call_within(seconds: float, call: Callable[[], T], error: type[Exception], what: str = "the call") -> T:
    """`call_until` `seconds` from now."""
    return call_until(time.monotonic() + seconds, call, error, what)


def limited(seconds: float | None) -> AbstractContextManager[None]:
    """`until(now + seconds)` for a block, or nothing when `seconds` is None."""
    return nullcontext() if seconds is None else until(time.monotonic() + seconds)
