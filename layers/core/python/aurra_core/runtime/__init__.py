"""The platform glue every function shares: configuration read once, the server-wide Level 2
flag, Logger/Tracer/Metrics, Powertools internals, the cold start's import discipline, the
Lambda invocation in progress, and the time limits of the calls a write waits for (`deadline`).

Imports run one way: everything may use `runtime`; `runtime` uses only `models` and `errors`.
Listeners: the callables of this process told of an event (`aurra dev`'s worker threads)."""
