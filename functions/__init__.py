"""Aurra's Lambda functions: one package each, `<name>/handler.py` exposing `lambda_handler`.

This module is the one list of the functions and of the HTTP routes. The CDK app
(infra/constants.py), the local gateway (`aurra dev`, `aurra invoke`) and the OpenAPI document
read it; tests/unit/test_one_source.py fails when a copy that cannot read it (pyproject.toml's
package list, the infra's per-function settings) drifts. It imports nothing, so the CDK app can
read it without the layer's dependencies.

Lambda never imports this package: each function's asset is its own folder, its handler the
top-level module `handler`. Installed from a wheel the folder is the package `aurra_functions`,
a name no other distribution claims (the folder keeps its short name for the CDK asset paths).
"""

# Functions behind an HTTP route, each with its own Powertools resolver.
HTTP_FUNCTIONS = ("write", "query", "supersede", "settings", "audit", "erasure")
# The API Gateway authorizer, the migration custom resource, key administration (operators
# only), the scheduled maintenance of large tenants' indexes, asynchronous Level 2's worker
# (SQS messages, and its sweeper on a schedule) and the change stream's dispatcher (every minute:
# the outbox to the stage's event bus and to webhooks).
OTHER_FUNCTIONS = ("authorizer", "migrate", "admin", "maintenance", "level2_worker", "dispatcher")
FUNCTIONS = HTTP_FUNCTIONS + OTHER_FUNCTIONS

# (method, resource, function) for every route of the API (docs/api.md).
ROUTES = (
    ("POST", "/agent/memories", "write"),
    ("POST", "/agent/memories/batch", "write"),
    ("GET", "/agent/memories", "query"),
    ("GET", "/agent/memories/{id}", "query"),
    ("GET", "/agent/memories/{id}/history", "query"),
    ("GET", "/agent/export", "query"),
    ("POST", "/agent/imports", "write"),
    ("POST", "/agent/imports/index", "write"),
    ("GET", "/agent/imports/index", "write"),
    ("POST", "/agent/memories/{id}/supersede", "supersede"),
    ("GET", "/agent/settings", "settings"),
    ("PATCH", "/agent/settings", "settings"),
    ("GET", "/agent/audit", "audit"),
    ("GET", "/agent/audit/{id}", "audit"),
    ("POST", "/agent/audit/{id}/revert", "audit"),
    ("POST", "/agent/audit/{id}/approve", "audit"),
    ("POST", "/agent/audit/{id}/dismiss", "audit"),
    ("POST", "/agent/erasures", "erasure"),
    ("GET", "/agent/erasures/{id}", "erasure"),
    ("GET", "/agent/events", "audit"),
    ("GET", "/agent/jobs", "audit"),
    ("GET", "/agent/jobs/{id}", "audit"),
    ("GET", "/agent/webhooks/deliveries", "settings"),
    ("POST", "/agent/webhooks/deliveries/{id}/replay", "settings"),
)
