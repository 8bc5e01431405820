"""Logger, Tracer and Metrics, created once and shared by every handler and the layer."""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = "aurra"
NAMESPACE = "Aurra"

logger = Logger(service=SERVICE)
tracer = Tracer(service=SERVICE)
metrics = Metrics(namespace=NAMESPACE, service=SERVICE)
