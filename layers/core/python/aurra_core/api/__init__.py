"""What every HTTP handler shares: the resolver, the caller from the authorizer's context,
the checks that run before routing, and the one place domain errors become the error
envelope.

Imports run one way: handlers use `api`; `api` uses `runtime`, `models`, `errors`,
`request_json` and `metering`.
"""
