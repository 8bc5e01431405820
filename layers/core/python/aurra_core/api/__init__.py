"""What every HTTP handler shares: the resolver, the caller from the authorizer's context,
the checks that run before routing (what a request's JSON may hold), and the one place
domain errors become the error envelope.

Imports run one way: handlers use `api`; `api` uses `runtime`, `models`, `errors` and `metering`."""
