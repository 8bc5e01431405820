"""The REST resolver's uses of Powertools beyond its public API (the package's docstring says
why they are kept apart): imported only by the functions behind API Gateway's routes and the
local tools that read their routes.

- the event handler keeps the request being resolved on the router *class* (`current_event`,
  `lambda_context`) and the matched route's context on the instance; `PerThreadResolver`
  keeps all three per thread, through the private `_to_proxy_event`;
- the resolver's registered routes (`_static_routes`, `_dynamic_routes`), which the OpenAPI
  document reads to put back the query models' constraints;
- `_call_route`, which the resolver calls with the matched route before that route's middlewares
  (OpenAPI validation among them) run, so `PerThreadResolver` can hand each route's models to
  `prepare_route` once, before Powertools builds the route's validation adapters on its first
  call; and a route's `func` and `responses`, what those adapters are built from.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver

if TYPE_CHECKING:
    from aws_lambda_powertools.event_handler.api_gateway import Route


class PerThreadResolver(APIGatewayRestResolver):
    """Lambda runs one invocation per process at a time, so Powertools' class-level request
    state is harmless there; `aurra dev` runs concurrent requests on threads of one process,
    where a request would read another's event, and so another tenant's caller, body and
    query. All three pieces of state are kept per thread: the same in Lambda."""

    def _per_thread(self) -> threading.local:
        return self.__dict__.setdefault("_aurra_per_thread", threading.local())  # type: ignore[no-any-return]

    @property
    def current_event(self) -> Any:
        return getattr(self._per_thread(), "current_event", None)

    @current_event.setter
    def current_event(self, value: Any) -> None:
        self._per_thread().current_event = value

    @property
    def lambda_context(self) -> Any:
        return getattr(self._per_thread(), "lambda_context", None)

    @lambda_context.setter
    def lambda_context(self, value: Any) -> None:
        self._per_thread().lambda_context = value

    @property
    def context(self) -> dict[str, Any]:
        state = self._per_thread()
        if not hasattr(state, "context"):
            state.context = {}
        return state.context  # type: ignore[no-any-return]

    @context.setter
    def context(self, value: dict[str, Any]) -> None:
        self._per_thread().context = value

    # Called once per route, before the route's first call, with the types its validation
    # adapters are built from (route_annotations) as arguments.
    prepare_route: Callable[..., None] | None = None

    def _call_route(self, route: Route, route_arguments: dict[str, str]) -> Any:
        prepared: set[int] = self.__dict__.setdefault("_aurra_prepared_routes", set())
        if self.prepare_route is not None and id(route) not in prepared:
            self.prepare_route(*route_annotations(route))
            prepared.add(id(route))
        return super()._call_route(route, route_arguments)

    def resolve(self, event: Any, context: Any) -> dict[str, Any]:
        self.current_event = self._to_proxy_event(getattr(event, "raw_event", event))
        self.lambda_context = context
        return super().resolve(event, context)


def registered_routes(app: APIGatewayRestResolver) -> list[Route]:
    """Every route registered on `app`, static and dynamic."""
    return [*app._static_routes, *app._dynamic_routes]


def route_annotations(route: Route) -> list[Any]:
    """The types Powertools' validation builds a route's adapters of: its parameters', its
    return's, and the models of its documented responses."""
    signature = inspect.signature(route.func, eval_str=True)
    annotations = [p.annotation for p in signature.parameters.values()]
    annotations.append(signature.return_annotation)
    for response in (route.responses or {}).values():
        for content in response.get("content", {}).values():
            model = dict(content).get("model")  # a schema or a model, two TypedDicts
            if model is not None:
                annotations.append(model)
    return annotations
