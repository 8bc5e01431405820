"""`aurra mcp`: Aurra as the memory of any agent that speaks MCP.

An MCP server built on the official `mcp` package that talks to any Aurra deployment
(hosted, an own AWS stage, or `aurra dev`) through the Python SDK. Over stdio it uses one key
(`AURRA_API_KEY`); over streamable HTTP each request may bring its own key in its
`Authorization` header, so one endpoint serves many keys.

Every tool answers with a short text a model reads well plus the API's JSON as structured
content. The API's errors become tool errors carrying the API's message: nothing a caller
sends can crash the server.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Literal, TypeVar

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from aurra import AsyncAurra
from aurra.errors import APIStatusError, AurraError, GoneError
from aurra.models import AuditEvent, AurraModel, Memory, WriteResult

INSTRUCTIONS = """\
Aurra is a long-term memory of facts about the user and the world they work in. It keeps
memory current: when a new fact replaces an old one ("switched to Emacs" after "uses Vim"),
the old one is superseded, not deleted, and every earlier state stays queryable in time.

Use `recall` before answering anything that depends on what you know about the user, and
`remember` whenever the user states a durable fact about themselves, their work or their
preferences (not small talk, not questions, not your own words). Pass `auto_supersede=true`
when the new fact may replace an older one; Aurra's classifier decides, precision first, and
each decision is in `audit`. Use `supersede` when you are sure a fact replaces a specific
memory, `revert` to undo a wrong supersession, and `review` for the supersessions Aurra
proposed but did not dare to make on its own. Use `forget` only when the user asks for
something to be forgotten: it erases the memory and its whole lineage for good, with no undo.
"""

_BEARER = re.compile(r"^Bearer\s+(\S+)$", re.IGNORECASE)
# The HTTP client library under the SDK logs every request at INFO. Over stdio the server's
# stderr is the MCP client's log, so by default only its warnings and errors go there.
HTTP_CLIENT_LOGGERS = ("httpx", "httpcore")
_Result = TypeVar("_Result")

# Arguments, described for the model that fills them in.
MemoryId = Annotated[str, Field(description="A memory id (UUID) as returned by remember or recall.")]
EventId = Annotated[str, Field(description="An audit event id (UUID) as returned by audit or review.")]
Topic = Annotated[
    str | None,
    Field(
        description="Category of the fact, lowercase letters, digits and underscores "
        "(e.g. preferences, location, work, health_medical). Defaults to general."
    ),
]
UserId = Annotated[
    str | None,
    Field(description="The end user this memory belongs to, when one agent serves many users."),
]
AgentId = Annotated[
    str | None,
    Field(description="The agent this memory belongs to, when several agents share one Aurra tenant."),
]
Timestamp = Annotated[
    str | None,
    Field(description="An RFC 3339 time with a zone, e.g. 2026-04-01T00:00:00Z."),
]


class MessageInput(AurraModel):
    role: Literal["user", "assistant", "system"]
    content: str
    created_at: str | None = None


ClientFactory = Callable[[str | None], AsyncAurra]

# The clients kept for keys the API accepted, most recently used last: at most POOL_SIZE, each
# closed once unused for POOL_IDLE_S (checked whenever a request ends). A key the API refused,
# or one it has not answered yet, is never kept: its client is closed when its request ends.
POOL_SIZE = 64
POOL_IDLE_S = 300.0


def _default_client_factory(api_key: str | None) -> AsyncAurra:
    """One client per key (the SDK reads AURRA_API_KEY / AURRA_BASE_URL when no key is given)."""
    return AsyncAurra(api_key=api_key)


@dataclass(eq=False)
class _Client:
    key: str | None
    client: AsyncAurra
    last_used: float
    in_use: int = 0  # requests under way with it
    pooled: bool = False
    retired: bool = False  # evicted, refused or never accepted: closed once not in use
    closed: bool = False


@dataclass(eq=False)
class _Request:
    """The clients one MCP request took, and what the API said of their key."""

    clients: list[_Client] = field(default_factory=list)
    accepted: bool | None = None  # None: the API did not say (no call, or no answer)


_request: ContextVar[_Request | None] = ContextVar("aurra_mcp_request", default=None)


def _api_answered(error: BaseException | None) -> None:
    """What the API's answer to this request's call says of its key (see _call)."""
    request = _request.get()
    if request is None:
        return
    if error is None:
        request.accepted = True
    elif isinstance(error, APIStatusError) and error.status_code in (401, 403):
        request.accepted = False
    elif isinstance(error, APIStatusError) and error.status_code < 500:
        request.accepted = True  # past the authorizer: the key is good, the request was not


class ClientPool:
    """The Aurra client for a request: its own key over HTTP, else the configured one.

    A bounded LRU of the clients of keys the API accepted (`size`, `idle_s`). Over HTTP anyone
    may send any key: a client is made for a key not in the pool, and kept only when the API
    accepted the key; otherwise it is closed when its request ends. An evicted client is closed
    once no request uses it. Each MCP request runs in `request_scope` (the server's middleware);
    a call outside any (in-process code calling a tool directly) pools its client at once."""

    def __init__(
        self,
        factory: ClientFactory,
        size: int = POOL_SIZE,
        idle_s: float = POOL_IDLE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._factory = factory
        self._size = size
        self._idle_s = idle_s
        self._clock = clock
        self._pooled: OrderedDict[str | None, _Client] = OrderedDict()

    def __len__(self) -> int:
        return len(self._pooled)

    def for_request(self, ctx: Context | None) -> AsyncAurra:
        return self.client_for(_bearer_key(ctx))

    def client_for(self, key: str | None) -> AsyncAurra:
        entry = self._pooled.get(key)
        if entry is None:
            try:
                entry = _Client(key, self._factory(key), self._clock())
            except AurraError as exc:
                raise ToolError(str(exc)) from exc
        entry.last_used = self._clock()
        request = _request.get()
        if request is not None:
            entry.in_use += 1
            request.clients.append(entry)
        elif not entry.pooled:
            self._pooled[key] = entry
            entry.pooled = True
        return entry.client

    @asynccontextmanager
    async def request_scope(self) -> AsyncIterator[_Request]:
        request = _Request()
        token = _request.set(request)
        try:
            yield request
        finally:
            _request.reset(token)
            await self._settle(request)

    async def middleware(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        """The MCP server's middleware: every inbound message runs in a request scope."""
        async with self.request_scope():
            return await call_next(ctx)

    async def accepts(self, authorization: str | None) -> bool | None:
        """Whether the API accepts the key of an `Authorization` header value (None: no header,
        the configured key): True, False, or None when the API could not be asked."""
        try:
            key = _key_of(authorization)
        except ToolError:
            return False
        entry = self._pooled.get(key)
        if entry is not None and self._clock() - entry.last_used <= self._idle_s:
            entry.last_used = self._clock()
            return True
        async with self.request_scope() as request:
            try:
                client = self.client_for(key)
            except ToolError:
                return False  # no key at all
            with suppress(ToolError):  # what the API said, if it answered, is in `request`
                await _call(client.settings.get())
        return request.accepted

    async def _settle(self, request: _Request) -> None:
        retire: list[_Client] = []
        for entry in request.clients:
            entry.in_use -= 1
            if request.accepted is False or entry.retired:
                retire.append(entry)  # refused (or revoked since it was pooled), or evicted
            elif request.accepted and not entry.pooled:
                current = self._pooled.get(entry.key)
                if current is not None:  # a concurrent request's client for the same key
                    await self._retire(current)
                self._pooled[entry.key] = entry
                entry.pooled = True
            elif not entry.pooled:
                retire.append(entry)  # the API did not say: not kept
            if entry.pooled:
                self._pooled.move_to_end(entry.key)
        now = self._clock()
        while len(self._pooled) > self._size:
            retire.append(self._pooled.popitem(last=False)[1])
        retire.extend(e for e in self._pooled.values() if now - e.last_used > self._idle_s and e.in_use == 0)
        for entry in retire:
            await self._retire(entry)

    async def _retire(self, entry: _Client) -> None:
        if self._pooled.get(entry.key) is entry:
            del self._pooled[entry.key]
        entry.pooled = False
        entry.retired = True
        if entry.in_use <= 0 and not entry.closed:
            entry.closed = True
            with suppress(Exception):  # a client that fails to close is dropped all the same
                await entry.client.close()

    async def close(self) -> None:
        for entry in list(self._pooled.values()):
            await self._retire(entry)


class StreamsNeedAKey:
    """ASGI middleware of `aurra mcp --http`: a GET of the MCP endpoint opens an event stream
    that stays open, so it is opened only for a key the API accepts (the request's own, else
    the configured one); anything else is answered at once, 401 (503 when the API could not
    be asked), and holds nothing open."""

    def __init__(self, app: Any, clients: ClientPool, path: str = "/mcp") -> None:
        self.app = app
        self.clients = clients
        self.path = path

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and scope["path"].rstrip("/") == self.path:
            header = next(
                (
                    value.decode("latin-1")
                    for name, value in scope["headers"]
                    if name.lower() == b"authorization"
                ),
                None,
            )
            accepted = await self.clients.accepts(header)
            if accepted is not True:
                await _refuse_stream(send, 401 if accepted is False else 503)
                return
        await self.app(scope, receive, send)


async def _refuse_stream(send: Any, status: int) -> None:
    message = (
        "An event stream needs a valid Aurra API key: send 'Authorization: Bearer <key>'."
        if status == 401
        else "The Aurra API could not be reached to check the key; retry shortly."
    )
    # In the shape the MCP transport gives its own HTTP errors: a JSON-RPC error without an id.
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="aurra"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _serve_http(server: MCPServer, host: str, port: int) -> None:
    """Streamable HTTP at http://HOST:PORT/mcp, stateless and in JSON, event streams behind a key."""
    import uvicorn

    app = server.streamable_http_app(stateless_http=True, json_response=True, host=host)
    clients: ClientPool = server.aurra_clients  # type: ignore[attr-defined]
    config = uvicorn.Config(
        StreamsNeedAKey(app, clients), host=host, port=port, log_level=server.settings.log_level.lower()
    )
    anyio.run(uvicorn.Server(config).serve)


def _bearer_key(ctx: Context | None) -> str | None:
    if ctx is None:
        return None
    try:
        headers = ctx.headers
    except ValueError:  # no request (an in-process call)
        return None
    if not headers:
        return None
    header = next((value for name, value in headers.items() if name.lower() == "authorization"), None)
    return _key_of(header)


def _key_of(header: str | None) -> str | None:
    """The key of an Authorization header value (None: no header)."""
    if header is None:
        return None
    found = _BEARER.match(header.strip())
    if not found:
        raise ToolError("The Authorization header must be 'Bearer <Aurra API key>'.")
    return found.group(1)


async def _call(operation: Awaitable[_Result]) -> _Result:
    """Run one API call; its error becomes a tool error with the API's own message."""
    try:
        result = await operation
    except GoneError as exc:
        _api_answered(exc)
        # The tool says why and where the receipt is, not the detail's field name ("id: erased").
        raise ToolError(
            f"This memory was erased for good (receipt [{exc.erasure_id}]): it cannot be read or changed."
        ) from exc
    except APIStatusError as exc:
        _api_answered(exc)
        details = "; ".join(
            f"{detail.get('field', '')}: {detail.get('problem', detail.get('message', ''))}".strip(": ")
            for detail in getattr(exc, "details", None) or []
            if isinstance(detail, dict)
        )
        raise ToolError(f"{exc.message}" + (f" ({details})" if details else "")) from exc
    except AurraError as exc:
        raise ToolError(str(exc)) from exc
    _api_answered(None)
    return result


def _given(**arguments: Any) -> dict[str, Any]:
    """The arguments the caller gave: an absent filter is left to the API's default."""
    return {name: value for name, value in arguments.items() if value is not None}


def _result(text: str, data: Any) -> CallToolResult:
    structured = data.model_dump(mode="json") if isinstance(data, AurraModel) else data
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def _when(value: datetime | None) -> str:
    return value.isoformat().replace("+00:00", "Z") if value else "-"


def _memory_line(memory: Memory) -> str:
    scope = f" user={memory.user_id}" if getattr(memory, "user_id", None) else ""
    scope += f" agent={memory.agent_id}" if getattr(memory, "agent_id", None) else ""
    score = f" score={memory.score:.2f}" if memory.score is not None else ""
    validity = f"valid {_when(memory.valid_from)} .. {_when(memory.valid_to) if memory.valid_to else 'now'}"
    return f"- [{memory.id}] {memory.content} ({memory.topic}, {memory.status}, {validity}{scope}{score})"


def _write_text(result: WriteResult) -> str:
    if not result.created:
        return f"Not stored: a duplicate of [{result.duplicate_of}] {result.memory.content}"
    lines = [f"Stored [{result.memory.id}] {result.memory.content}"]
    auto = result.auto_supersede
    if auto.supersession is not None:
        lines.append(
            f"It superseded [{auto.supersession.superseded_id}] ({auto.supersession.classifier}, "
            f"confidence {auto.supersession.confidence:.2f}): {auto.supersession.reason or ''}".rstrip()
        )
    elif auto.skipped_reason:
        lines.append(f"Automatic supersession did not run: {auto.skipped_reason}.")
    elif auto.decision is not None:
        lines.append(
            f"Nothing superseded; strongest verdict {auto.decision.classifier} at "
            f"{auto.decision.confidence:.2f} on [{auto.decision.candidate_id}]."
        )
    return "\n".join(lines)


def _event_line(event: AuditEvent) -> str:
    parts = [f"- [{event.id}] {event.type} at {_when(event.created_at)}"]
    if event.memory_id:
        parts.append(f"memory={event.memory_id}")
    if event.superseded_id:
        parts.append(f"superseded={event.superseded_id}")
    status = getattr(event, "status", None)
    if status:
        parts.append(f"status={status}")
    if event.classifier:
        parts.append(
            f"{event.classifier} {event.confidence:.2f}" if event.confidence is not None else event.classifier
        )
    if event.reason:
        parts.append(f"reason: {event.reason}")
    return " ".join(parts)


def _lines(header: str, items: Iterable[str], empty: str) -> str:
    body = list(items)
    return "\n".join([header, *body]) if body else empty


def create_server(client_factory: ClientFactory = _default_client_factory) -> MCPServer:
    """The Aurra MCP server; `client_factory(key)` makes the SDK client for a key (None: configured)."""
    server: MCPServer = MCPServer(name="aurra", instructions=INSTRUCTIONS)
    clients = ClientPool(client_factory)
    server.middleware.append(clients.middleware)

    @server.tool(
        annotations=ToolAnnotations(title="Remember a fact", read_only_hint=False, destructive_hint=False),
    )
    async def remember(
        content: Annotated[
            str | None,
            Field(description="One durable fact as a short sentence, e.g. 'User switched to Emacs'."),
        ] = None,
        messages: Annotated[
            list[MessageInput] | None,
            Field(description="Instead of content: conversation turns; Aurra extracts the facts."),
        ] = None,
        topic: Topic = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
        valid_from: Annotated[
            str | None, Field(description="When the fact became true (RFC 3339); default now.")
        ] = None,
        auto_supersede: Annotated[
            bool | None,
            Field(
                description="True: let Aurra retire an older memory this fact replaces. Default: the key's."
            ),
        ] = None,
        ctx: Context | None = None,
    ) -> CallToolResult:
        """Store a durable fact (or the facts of a conversation) in long-term memory.

        Use it when the user states something worth remembering about themselves, their work or
        preferences. With auto_supersede, a fact that replaces an older one retires it (the old
        one stays in history). The result says what was stored and what, if anything, it superseded.
        """
        if (content is None) == (messages is None):
            raise ToolError("Give exactly one of content (a fact) or messages (a conversation).")
        client = clients.for_request(ctx)
        options = _given(
            topic=topic,
            user_id=user_id,
            agent_id=agent_id,
            valid_from=valid_from,
            auto_supersede=auto_supersede,
        )
        if messages is not None:
            result = await _call(
                client.memories.add(
                    messages=[message.model_dump(exclude_none=True) for message in messages], **options
                )
            )
            facts = getattr(result, "facts", [])
            text = _lines(
                f"{len(facts)} fact(s) from the conversation:",
                (_write_text(fact) for fact in facts),
                "No durable facts found in the conversation; nothing stored.",
            )
            return _result(text, result)
        write = await _call(client.memories.add(content=content, **options))
        return _result(_write_text(write), write)

    @server.tool(annotations=ToolAnnotations(title="Recall memories", read_only_hint=True))
    async def recall(
        q: Annotated[
            str | None, Field(description="What to look for, in natural language. Omit to list.")
        ] = None,
        topic: Topic = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
        as_of: Annotated[
            str | None,
            Field(description="Valid time: what was true at this moment (RFC 3339). Default now."),
        ] = None,
        known_at: Annotated[
            str | None,
            Field(description="Transaction time: what Aurra knew at this moment (RFC 3339). Default now."),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="At most this many memories.")] = 10,
        ctx: Context | None = None,
    ) -> CallToolResult:
        """Find what Aurra remembers: current facts by default, or as of a past time.

        Use as_of for "what was true then" and known_at for "what did we know then". Each line is
        one memory with its id, topic, status and valid time; with q, the most relevant first.
        """
        client = clients.for_request(ctx)
        filters = _given(
            topic=topic, user_id=user_id, agent_id=agent_id, as_of=as_of, known_at=known_at, limit=limit
        )
        if q is not None:
            page = await _call(client.memories.search_page(q, **filters))
        else:
            page = await _call(client.memories.list_page(**filters))
        text = _lines(
            f"{len(page.memories)} memor{'y' if len(page.memories) == 1 else 'ies'}:",
            (_memory_line(memory) for memory in page.memories),
            "No memories match.",
        )
        return _result(text, page)

    @server.tool(annotations=ToolAnnotations(title="History of a memory", read_only_hint=True))
    async def history(memory_id: MemoryId, ctx: Context | None = None) -> CallToolResult:
        """The whole lineage of a memory: what it replaced and what replaced it, oldest first."""
        client = clients.for_request(ctx)
        result = await _call(client.memories.history(memory_id))
        text = _lines(
            f"Lineage of [{memory_id}], oldest first:",
            (_memory_line(memory) for memory in result.chain),
            "No lineage.",
        )
        return _result(text, result)

    @server.tool(
        annotations=ToolAnnotations(
            title="Supersede a memory", read_only_hint=False, destructive_hint=True, idempotent_hint=False
        )
    )
    async def supersede(
        memory_id: Annotated[str, Field(description="The id of the memory that is no longer true.")],
        content: Annotated[str, Field(description="The fact that replaces it.")],
        topic: Topic = None,
        valid_from: Annotated[
            str | None, Field(description="When the new fact became true (RFC 3339); default now.")
        ] = None,
        ctx: Context | None = None,
    ) -> CallToolResult:
        """Replace a specific memory with a new fact, when you are sure the old one stopped being true.

        The old memory stays in history (valid until the new one's valid_from); revert undoes it.
        """
        client = clients.for_request(ctx)
        result = await _call(
            client.memories.supersede(memory_id, content=content, topic=topic, valid_from=valid_from)
        )
        text = f"Stored [{result.memory.id}] {result.memory.content}\nSuperseded [{result.superseded.id}] {result.superseded.content}"
        return _result(text, result)

    @server.tool(annotations=ToolAnnotations(title="Audit trail", read_only_hint=True))
    async def audit(
        memory_id: Annotated[
            str | None, Field(description="Only the events of this memory. Omit for the most recent events.")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="At most this many events.")] = 20,
        ctx: Context | None = None,
    ) -> CallToolResult:
        """Why memory changed: supersessions (with the classifier's reason and confidence), reverts,
        duplicates rejected and settings changes, newest first. Use an event id with revert."""
        client = clients.for_request(ctx)
        page = await _call(client.audit.list_page(memory_id=memory_id, limit=limit))
        text = _lines(
            f"{len(page.events)} event(s), newest first:",
            (_event_line(event) for event in page.events),
            "No audit events.",
        )
        return _result(text, page)

    @server.tool(
        annotations=ToolAnnotations(
            title="Revert a supersession", read_only_hint=False, destructive_hint=True, idempotent_hint=False
        )
    )
    async def revert(
        event_id: Annotated[str, Field(description="The id of the supersession event to undo (from audit).")],
        ctx: Context | None = None,
    ) -> CallToolResult:
        """Undo a supersession: the retired memory is current again (and Aurra will not retire it
        automatically for the same reason again). Both states stay in history."""
        client = clients.for_request(ctx)
        result = await _call(client.audit.revert(event_id))
        return _result(f"Restored [{result.restored.id}] {result.restored.content}", result)

    @server.tool(
        annotations=ToolAnnotations(
            title="Forget a memory for good",
            read_only_hint=False,
            destructive_hint=True,
            idempotent_hint=True,
        )
    )
    async def forget(
        memory_id: Annotated[str, Field(description="The id of the memory to erase (from recall).")],
        ctx: Context | None = None,
    ) -> CallToolResult:
        """Erase a memory for good, with everything it replaced and everything that replaced it:
        its content leaves Aurra (only a content-free tombstone and a receipt remain) and it is
        never recalled again, at any time. No undo. Only when the user asks to forget it."""
        client = clients.for_request(ctx)
        receipt = await _call(client.erasures.create(memory_id=memory_id))
        counts = receipt.counts
        already = "" if receipt.created else " (already erased)"
        text = (
            f"Erased{already}: {counts.memories} memory(ies), {counts.versions} version(s); "
            f"receipt [{receipt.id}]"
        )
        return _result(text, receipt)

    @server.tool(
        annotations=ToolAnnotations(
            title="Review proposed supersessions", read_only_hint=False, destructive_hint=True
        )
    )
    async def review(
        action: Annotated[
            Literal["list", "approve", "dismiss"],
            Field(description="list the open proposals, or approve / dismiss one by its event id."),
        ] = "list",
        event_id: Annotated[
            str | None, Field(description="The proposal's event id, for approve and dismiss.")
        ] = None,
        ctx: Context | None = None,
    ) -> CallToolResult:
        """The review queue: supersessions Aurra thought likely but not certain enough to make alone.

        list shows the open proposals (new memory, old memory, confidence, reason). Approve one only
        when the new fact really replaces the old one: it supersedes it. Dismiss leaves both current.
        """
        client = clients.for_request(ctx)
        if action == "list":
            page = await _call(client.audit.list_page(type="supersession_proposed", status="open", limit=50))
            text = _lines(
                f"{len(page.events)} open proposal(s):",
                (_event_line(event) for event in page.events),
                "No open proposals.",
            )
            return _result(text, page)
        if not event_id:
            raise ToolError(f"{action} needs the proposal's event_id (see review with action=list).")
        if action == "approve":
            approved = await _call(client.audit.approve(event_id))
            return _result(
                f"Approved: [{approved.memory.id}] {approved.memory.content} supersedes "
                f"[{approved.superseded.id}] {approved.superseded.content}",
                approved,
            )
        dismissed = await _call(client.audit.dismiss(event_id))
        return _result(f"Dismissed proposal [{event_id}]; both memories stay current.", dismissed)

    server.aurra_clients = clients  # type: ignore[attr-defined]  # for run() and tests
    return server


def quiet_http_client_logs(log_requests: bool = False) -> None:
    """Keep the HTTP client library's per-request INFO lines off stderr, unless `log_requests`;
    its warnings and errors still get there."""
    level = logging.NOTSET if log_requests else logging.WARNING
    for name in HTTP_CLIENT_LOGGERS:
        logging.getLogger(name).setLevel(level)


def run(*, http: bool = False, host: str = "127.0.0.1", port: int = 8765, log_requests: bool = False) -> None:
    """Serve over stdio (the default) or streamable HTTP at http://HOST:PORT/mcp; `log_requests`
    logs each request to the Aurra API on stderr."""
    server = create_server()
    quiet_http_client_logs(log_requests)
    if http:
        _serve_http(server, host, port)
    else:
        server.run("stdio")
