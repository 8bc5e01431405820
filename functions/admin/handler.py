"""Key administration for a deployed stage: create, list, revoke, rotate.

No public route reaches it; operators invoke it directly (`aurra keys ... --stage <stage>`).
Each Aurra key gets an API Gateway API key whose value is the Aurra key id, attached to the
stage's usage plan, so API Gateway meters and throttles per customer key.
"""

import gc

gc.disable()  # until imports_done() below: aurra_core/runtime/cold_start.py says why

from typing import Any

from aws_lambda_powertools.utilities.parser import event_parser
from aws_lambda_powertools.utilities.typing import LambdaContext

from aurra_core.access import admin
from aurra_core.errors import AurraError
from aurra_core.runtime.cold_start import imports_done
from aurra_core.runtime.observability import logger


@logger.inject_lambda_context
@event_parser(model=admin.AdminEvent)
def lambda_handler(event: admin.AdminEvent, context: LambdaContext) -> dict[str, Any]:
    """`{"ok": true, ...the action's result}`, or `{"ok": false, "error": {"code", "message"}}`."""
    try:
        result = admin.perform(event.request)
    except AurraError as exc:
        return {"ok": False, "error": {"code": exc.code, "message": exc.message}}
    return {"ok": True, **result.model_dump(mode="json", exclude_none=True)}


imports_done()
