"""Every use Aurra makes of Powertools beyond its public API, in this package.

Powertools is pinned to one version (pyproject.toml and layers/core/requirements.txt);
tests/unit/test_powertools_internals.py fails, naming the piece, when an upgrade changes any
of what this package relies on. Here, what every function may need; the REST resolver's pieces
are in `resolver`, which imports Powertools' event handler (tens of milliseconds of a cold
start), so that only the functions behind API Gateway's routes load it:

- `IdempotencyHandler`, which the idempotency utility does not export, to run one call under
  an Idempotency-Key without its decorator (the key comes from a header, not the event);
- `BasePersistenceLayer._validate_payload`, which a persistence layer of our own must call when
  it finds an existing record in the same statement that tried to claim it;
- `IdempotencyHandler`'s deep copy of the payload, which `run_idempotent` spares (below);
- `Tracer._is_tracer_disabled`, the Tracer's own rule for when tracing is off (outside Lambda,
  under SAM or Chalice local, POWERTOOLS_TRACE_DISABLED), which the lazy tracer asks before it
  creates a Tracer (and with it the X-Ray recorder), on every function's first traced call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Tracer

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer, IdempotencyConfig
    from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import DataRecord


class Unchanged(dict[str, Any]):
    """A payload that its caller built for the call and never changes: its deep copy is itself.
    `IdempotencyHandler` deep-copies the payload against a caller that changes it afterwards;
    a batch's hundred facts, copied, were 6% of a batch write's CPU. Hashed as the dict it is."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Unchanged:
        return self


def run_idempotent(
    function: Callable[[], dict[str, Any]],
    payload: Any,
    *,
    config: IdempotencyConfig,
    persistence_store: BasePersistenceLayer,
    key_prefix: str,
) -> Any:
    """`function` at most once per idempotency key derived from `payload`."""
    # Imported here: the idempotency utility brings boto3, which no request without a key needs.
    from aws_lambda_powertools.utilities.idempotency.base import IdempotencyHandler

    handler = IdempotencyHandler(
        function=function,
        function_payload=Unchanged(payload) if isinstance(payload, dict) else payload,
        config=config,
        persistence_store=persistence_store,
        key_prefix=key_prefix,
        function_args=(),
        function_kwargs={},
    )
    return handler.handle()


def validate_payload(layer: BasePersistenceLayer, new: DataRecord, stored: DataRecord) -> None:
    """Raise IdempotencyValidationError when `new` carries another payload than `stored`."""
    layer._validate_payload(data_payload=new, stored_data_record=stored)


def tracing_disabled() -> bool:
    """Whether a Tracer created now would be disabled, without creating one (creating one
    imports the X-Ray SDK)."""
    return bool(Tracer._is_tracer_disabled())
