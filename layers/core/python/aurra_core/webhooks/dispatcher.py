"""The dispatcher: the change stream leaving the database in a deployed stage.

Every minute a schedule starts it (one at a time: reserved concurrency 1); it then drains in a
loop for `RUN_FOR_S` (and ends before its timeout whatever the time left): each round publishes the events past each tenant's bus
cursor to the stage's EventBridge bus (event_bus.py) and runs the very webhook delivery
`aurra dev` runs (delivery.run_once: fan-out, then the sends that are due), and waits a moment
when a round found nothing to do. At the end it reports the age of the oldest event not yet on
the bus (`OutboxLagSeconds`), which an alarm watches: a dispatcher that stopped, or a bus that
refuses events, shows as a lag that grows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from aurra_core.runtime.config import ServiceConfig, get_config
from aurra_core.runtime.observability import logger, metrics
from aurra_core.storage.db import Database, resolve_conninfo
from aurra_core.webhooks import delivery, event_bus

OUTBOX_LAG_METRIC = "OutboxLagSeconds"
# A round that did nothing waits this long before the next.
IDLE_WAIT_S = 1.0
# How long one run drains, at most: started every minute, a run of 40 s ends well before the
# next one starts, even with the schedule's jitter and a cold start (reserved concurrency 1: an
# overlap would be a throttle, and a throttle alarms).
RUN_FOR_S = 40.0


def drain(
    db: Database,
    bus: event_bus.EventBridgeBus | None,
    config: ServiceConfig,
    *,
    run_for_s: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> dict[str, Any]:
    """Rounds for `run_for_s` seconds (at least one); what they did, and the lag."""
    published = attempts = rounds = 0
    stalled: set[str] = set()
    deadline = clock() + run_for_s
    while rounds == 0 or clock() < deadline:
        rounds += 1
        report = event_bus.publish(db, bus) if bus is not None else event_bus.PublishReport()
        stalled.update(report.stalled)
        sent = 0
        if config.webhooks_enabled:
            # each send may take its whole timeout: no more than the time left allows
            budget = (deadline - clock()) / config.webhook_timeout_s
            sent = delivery.run_once(db, max_sends=max(1, int(budget)))
        published += report.published
        attempts += sent
        if not report.published and not sent:
            sleep(IDLE_WAIT_S)
    lag_s = event_bus.oldest_unpublished_age_s(db) if bus is not None else 0.0
    metrics.add_metric(name=OUTBOX_LAG_METRIC, unit=MetricUnit.Seconds, value=lag_s)
    result = {
        "rounds": rounds,
        "published": published,
        "webhook_attempts": attempts,
        "stalled_tenants": sorted(stalled),
        "outbox_lag_s": round(lag_s, 3),
    }
    logger.info("change stream dispatched", extra={"dispatch": result})
    return result


def run(*, time_left_s: Callable[[], float]) -> dict[str, Any]:
    """The dispatcher function's one call: the configured database (the owner role, which reads
    across tenants, as maintenance does) and bus, drained until shortly before the timeout (a
    webhook send may take its whole timeout: the last round ends before Lambda's does)."""
    config = get_config()
    db = Database(resolve_conninfo(config), max_size=1)
    bus = None
    if config.event_bus_name:
        bus = event_bus.EventBridgeBus(bus_name=config.event_bus_name, stage=config.stage)
    try:
        run_for_s = min(RUN_FOR_S, time_left_s() - (config.webhook_timeout_s + 5))
        return drain(db, bus, config, run_for_s=run_for_s)
    finally:
        db.close()
