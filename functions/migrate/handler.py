"""The migration custom resource: applies the same migrations as `aurra migrate` on deploy."""

import gc

gc.disable()  # until imports_done() below: aurra_core/runtime/cold_start.py says why

from aws_lambda_powertools.utilities.typing import LambdaContext

from aurra_core.runtime.cold_start import imports_done
from aurra_core.runtime.config import get_config
from aurra_core.runtime.observability import logger
from aurra_core.storage.db import login_passwords, resolve_conninfo
from aurra_core.storage.migrate import apply_migrations, set_login_passwords

PHYSICAL_ID = "aurra-schema"


@logger.inject_lambda_context
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    """onEvent handler of a CDK Provider: it returns the response, the framework sends it."""
    if event.get("RequestType") == "Delete":
        # The schema holds users' memories: removing the stack never drops it.
        return {"PhysicalResourceId": event.get("PhysicalResourceId", PHYSICAL_ID)}
    config = get_config()
    conninfo = resolve_conninfo(config)
    applied = apply_migrations(conninfo, config.embedding_dim)
    logins = set_login_passwords(conninfo, login_passwords(config))
    logger.info("migrations applied", extra={"applied": applied, "logins": logins})
    return {"PhysicalResourceId": PHYSICAL_ID, "Data": {"Applied": ",".join(applied) or "none"}}


imports_done()
