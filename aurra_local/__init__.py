"""Aurra on a developer's machine: the `aurra` CLI, the local API Gateway and embedded Postgres."""
