"""The migration custom resource: applies the same migrations as `aurra migrate` on deploy."""

import gc

gc.disable()  # until imports_done() below: aurra_core/runtime/cold_start.py says why

from aws_lambda_powertools.utilities.typing import LambdaContext

from aurra_core.runtime.cold_start import imports_done
from aurra_core.runtime.config import get_config
from aurra_core.runtime.observability import logger
from aurra_core.storage.db import login_passwords, resolve_conninfo
from aurra_core.storage.migrate import apply_migrations, migrations_fingerprint, set_login_passwords

PHYSICAL_ID = "aurra-schema"
# Time kept back from the function's own timeout: the logins' passwords and the answer.
RESERVE_S = 30.0


@logger.inject_lambda_context
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    """onEvent handler of a CDK Provider: it returns the response, the framework sends it.

    Only an event for this code's own migrations does anything. CloudFormation rolls a failed
    update back by sending the resource its old properties while this function still runs the
    new code (the function is rolled back after the resource that depends on it): applying the
    new code's migrations then would fail again and leave the stack UPDATE_ROLLBACK_FAILED. The
    schema stays as the new code left it, which the old code works with (the expand/contract
    rule, docs/deploy.md)."""
    physical_id = event.get("PhysicalResourceId", PHYSICAL_ID)
    if event.get("RequestType") == "Delete":
        # The schema holds users' memories: removing the stack never drops it.
        return {"PhysicalResourceId": physical_id}
    wanted = (event.get("ResourceProperties") or {}).get("MigrationsFingerprint")
    own = migrations_fingerprint()
    if wanted != own:
        logger.warning(
            "the event names other migrations than this code's (a rollback): nothing done",
            extra={"event_fingerprint": wanted, "code_fingerprint": own, "request": event.get("RequestType")},
        )
        return {"PhysicalResourceId": physical_id, "Data": {"Applied": "none"}}
    config = get_config()
    conninfo = resolve_conninfo(config)
    applied = apply_migrations(
        conninfo,
        config.embedding_dim,
        retry_for_s=max(10.0, context.get_remaining_time_in_millis() / 1000 - RESERVE_S),
    )
    logins = set_login_passwords(conninfo, login_passwords(config))
    logger.info("migrations applied", extra={"applied": applied, "logins": logins})
    return {"PhysicalResourceId": physical_id, "Data": {"Applied": ",".join(applied) or "none"}}


imports_done()
