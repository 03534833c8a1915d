"""``Client``: run the tool calls of an assistant turn on toolbus and get their results back."""

import asyncio
import inspect
import logging
import uuid
from types import TracebackType
from typing import (Any, Awaitable, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, Type,
                    TypeVar)

from .dedup import SeenKeys
from .errors import BadEventError, RejectedError, ToolbusError, TransportError, TurnTimeoutError
from .events import (ApprovalRequest, ErrorEvent, Event, InputRequest, JsonObject, SendMessage, SkillsEvent,
                     ToolProgress, ToolsEvent, TurnCompleted, parse_event)
from .options import (GATEWAY_SCHEMES, HttpOptions, KafkaOptions, RedisOptions, TransportOptions, WebSocketOptions,
                      for_url)
from .transports import Transport
from .turn import Turn

log = logging.getLogger("toolbus")

E = TypeVar("E", bound=Event)
#: A callback for one kind of live event: a plain function or a coroutine function.
Callback = Callable[[E], Optional[Awaitable[Any]]]
#: A call as the model wrote it: a toolbus call, an OpenAI ``tool_calls`` item, an OpenAI Responses
#: ``function_call`` item or an Anthropic ``tool_use`` block.
Call = Mapping[str, Any]


class _Pending:
    __slots__ = ("event", "turn", "future", "callbacks")

    def __init__(self, event: JsonObject, turn: Turn, future: "asyncio.Future[Turn]",
                 callbacks: Dict[str, Optional[Callback[Any]]]):
        self.event = event
        self.turn = turn
        self.future = future
        self.callbacks = callbacks


def _call_item(call: Call) -> JsonObject:
    """Accepts a toolbus call, an OpenAI ``tool_calls`` item or an Anthropic ``tool_use`` block.

    A ``caller`` (who made the call: Anthropic's ``{"type": "code_execution_20250825", "tool_id": ...}``,
    OpenAI's ``{"type": "program", "caller_id": ...}`` or toolbus's ``{"type": "programmatic", "id": ...}``)
    is passed on unchanged; toolbus reads each of these shapes.
    """
    if not isinstance(call, Mapping):
        raise TypeError(f"a call must be a dict, got {type(call).__name__}")
    item: JsonObject
    if call.get("type") == "tool_use":
        item = {"tool_call_id": call.get("id"), "name": call.get("name"), "arguments": call.get("input") or {}}
    elif call.get("type") == "function_call" and "call_id" in call:  # OpenAI Responses output item
        item = {"tool_call_id": call["call_id"], "name": call.get("name"), "arguments": call.get("arguments")}
    else:
        return dict(call)
    if call.get("caller") is not None:
        item["caller"] = call["caller"]
    return item


def _traced(event: JsonObject, traceparent: Optional[str], tracestate: Optional[str]) -> JsonObject:
    """``event`` with the W3C trace context fields (``tracestate`` only beside a ``traceparent``)."""
    if traceparent is not None:
        event["traceparent"] = traceparent
        if tracestate is not None:
            event["tracestate"] = tracestate
    return event


class Client:
    """A connection to toolbus over one transport, chosen by the URL.

    ``http://`` / ``https://`` (the gateway, HTTP and SSE), ``ws://`` / ``wss://`` (the gateway's
    WebSocket ``/v1/ws``), ``redis://`` (Redis Streams), ``kafka://HOST:PORT[,HOST:PORT]`` or
    ``stdio:`` (a sidecar process). Use it as an async context manager::

        async with Client("http://127.0.0.1:8765", token="...") as tb:
            turn = await tb.run_turn("qq:group:1", assistant["tool_calls"], context={"user_id": "42"})
            messages += turn.to_openai()

    :param url: where toolbus is; its scheme picks the transport
    :param token: the gateway's bearer token (``http``, ``https``, ``ws``, ``wss`` only)
    :param transport: that transport's options (``HttpOptions``, ``WebSocketOptions``, ``RedisOptions``,
        ``KafkaOptions`` or ``StdioOptions``, which ``stdio:`` needs); default: the scheme's defaults
    :param timeout: seconds a turn may take until its ``turn_completed``
    :param dedup_capacity: how many event ids are remembered to drop redeliveries
    :param on_approval_request: live events of every turn (``run_turn`` can replace them per turn);
        plain functions or coroutine functions
    :raises ValueError: an unsupported URL, options of another transport, a token for a broker URL,
        a bad ``timeout`` or ``dedup_capacity``

    Events are deduplicated by their ids, since every transport delivers at least once.
    """

    def __init__(self, url: str, token: Optional[str] = None, *, transport: Optional[TransportOptions] = None,
                 timeout: float = 300.0, dedup_capacity: int = 10000,
                 on_approval_request: Optional[Callback[ApprovalRequest]] = None,
                 on_input_request: Optional[Callback[InputRequest]] = None,
                 on_send_message: Optional[Callback[SendMessage]] = None,
                 on_progress: Optional[Callback[ToolProgress]] = None,
                 on_error: Optional[Callback[ErrorEvent]] = None):
        self.options: TransportOptions = for_url(url, transport)
        self._scheme = url.split(":", 1)[0].lower()
        if token is not None and self._scheme not in GATEWAY_SCHEMES:
            raise ValueError(f"token is the gateway's bearer token (http, https, ws, wss URLs); {url!r} takes none")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self.url = url
        self._token = token
        self._timeout = float(timeout)
        self._callbacks: Dict[str, Optional[Callback[Any]]] = {
            "approval_request": on_approval_request, "input_request": on_input_request,
            "send_message": on_send_message, "tool_progress": on_progress, "error": on_error}
        self._seen = SeenKeys(dedup_capacity)
        self._pending: Dict[Tuple[str, str], _Pending] = {}
        self._requests: "Dict[str, asyncio.Future[Event]]" = {}
        self._tasks: "Set[asyncio.Future[None]]" = set()
        self._transport: Optional[Transport] = None
        #: How many redelivered events were dropped.
        self.duplicates_dropped = 0

    async def __aenter__(self) -> "Client":
        await self.connect()
        return self

    async def __aexit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                        tb: Optional[TracebackType]) -> None:
        await self.close()

    async def connect(self) -> "Client":
        """Connects the transport; ``async with`` does it for you.

        :raises TransportError: toolbus or the broker cannot be reached
        :raises AuthenticationError: the gateway refused the token (WebSocket)
        """
        o = self.options
        transport: Transport
        deliver = self._deliver
        if isinstance(o, HttpOptions):
            from .transports.http import HttpTransport
            transport = HttpTransport(self.url, self._token, deliver, o)
        elif isinstance(o, WebSocketOptions):
            from .transports.ws import WebSocketTransport
            transport = WebSocketTransport(self.url, self._token, deliver, self._in_flight, o)
        elif isinstance(o, RedisOptions):
            from .transports.redis_streams import RedisTransport
            transport = RedisTransport(self.url, deliver, o)
        elif isinstance(o, KafkaOptions):
            from .transports.kafka import KafkaTransport
            brokers = [b for b in self.url.split(":", 1)[1].lstrip("/").split(",") if b]
            transport = KafkaTransport(brokers, deliver, o)
        else:
            from .transports.stdio import StdioTransport
            transport = StdioTransport(o, deliver)
        self._transport = transport
        await transport.start()
        return self

    async def close(self) -> None:
        """Fails the turns still running with ``TransportError`` and closes the transport."""
        for p in list(self._pending.values()):
            if not p.future.done():
                p.future.set_exception(TransportError("the client was closed"))
        if self._transport is not None:
            await self._transport.close()
        for t in list(self._tasks):
            t.cancel()

    @property
    def transport(self) -> Optional[Transport]:
        """The connected transport (None before ``connect``)."""
        return self._transport

    def _connected(self) -> Transport:
        if self._transport is None:
            raise TransportError("the client is not connected: use 'async with Client(...)' or await connect()")
        return self._transport

    async def run_turn(self, stream_id: str, calls: Iterable[Call], *, context: Optional[Mapping[str, str]] = None,
                       message: Any = None, turn_id: Optional[str] = None, timeout: Optional[float] = None,
                       traceparent: Optional[str] = None, tracestate: Optional[str] = None,
                       on_approval_request: Optional[Callback[ApprovalRequest]] = None,
                       on_input_request: Optional[Callback[InputRequest]] = None,
                       on_send_message: Optional[Callback[SendMessage]] = None,
                       on_progress: Optional[Callback[ToolProgress]] = None,
                       on_error: Optional[Callback[ErrorEvent]] = None) -> Turn:
        """Runs the calls of one assistant turn and returns its ``Turn`` once ``turn_completed`` arrived.

        ``calls``: toolbus calls, OpenAI ``tool_calls`` items or Anthropic ``tool_use`` blocks, in
        the model's order. ``traceparent`` / ``tracestate`` (W3C Trace Context, e.g. of the span
        around the LLM request) continue the bot core's trace through toolbus; every event comes back
        with the trace context of its span (``event.traceparent``). Per-turn callbacks replace the
        client's for this turn.

        :raises TurnTimeoutError: no ``turn_completed`` within ``timeout`` (default: the client's)
        :raises BadEventError: toolbus could not decode the turn
        :raises RejectedError: toolbus did not take it (shutting down, overloaded)
        :raises TransportError: the connection failed while the turn ran
        """
        if not isinstance(stream_id, str) or not stream_id.strip():
            raise ValueError("stream_id must be a non-blank string")
        transport = self._connected()
        turn_id = turn_id or f"py-{uuid.uuid4().hex}"
        event: JsonObject = {"type": "tool_calls", "stream_id": stream_id, "turn_id": turn_id,
                             "calls": [_call_item(c) for c in calls]}
        if context:
            event["context"] = dict(context)
        if message is not None:
            event["message"] = message
        _traced(event, traceparent, tracestate)
        key = (stream_id, turn_id)
        if key in self._pending:
            raise ValueError(f"turn {turn_id} of stream {stream_id} is already running on this client")
        callbacks = dict(self._callbacks)
        overrides: Sequence[Tuple[str, Optional[Callback[Any]]]] = (
            ("approval_request", on_approval_request), ("input_request", on_input_request),
            ("send_message", on_send_message), ("tool_progress", on_progress), ("error", on_error))
        for name, cb in overrides:
            if cb is not None:
                callbacks[name] = cb
        future: "asyncio.Future[Turn]" = asyncio.get_running_loop().create_future()
        self._pending[key] = _Pending(event, Turn(stream_id, turn_id), future, callbacks)
        wait = timeout or self._timeout
        try:
            await transport.send_turn(event)
            return await asyncio.wait_for(asyncio.shield(future), wait)
        except asyncio.TimeoutError:
            raise TurnTimeoutError(f"no turn_completed for turn {turn_id} of {stream_id} within {wait}s") from None
        finally:
            self._pending.pop(key, None)
            transport.release(stream_id)

    async def cancel(self, stream_id: str, turn_id: Optional[str] = None, tool_call_id: Optional[str] = None,
                     reason: Optional[str] = None, *, traceparent: Optional[str] = None,
                     tracestate: Optional[str] = None) -> None:
        """Cancels one call, every unfinished call of a turn, or (no ``turn_id``) every turn of the stream.

        ``traceparent`` / ``tracestate`` (W3C Trace Context of the sender's span): toolbus's span of the
        cancel joins that trace."""
        event: JsonObject = {"type": "cancel", "stream_id": stream_id}
        if turn_id is not None:
            event["turn_id"] = turn_id
        if tool_call_id is not None:
            event["tool_call_id"] = tool_call_id
        if reason:
            event["reason"] = reason
        await self._connected().send_control(_traced(event, traceparent, tracestate))

    async def respond_approval(self, request: ApprovalRequest, decision: str, *, tool_call_id: Optional[str] = None,
                               arguments: Optional[JsonObject] = None, message: Optional[str] = None,
                               traceparent: Optional[str] = None, tracestate: Optional[str] = None) -> None:
        """Answers an ``approval_request``: ``approve``, ``deny`` or ``approve_session``; for one call only
        (``tool_call_id``), with the user's edit of its ``arguments`` (approve only) or a ``message`` the model
        reads (deny only, at most 2,000 characters).

        ``traceparent`` / ``tracestate``: the trace context of the answering span, as for ``cancel``."""
        if decision not in ("approve", "deny", "approve_session"):
            raise ValueError("decision must be approve, deny or approve_session")
        if arguments is not None and (decision == "deny" or not isinstance(arguments, dict)):
            raise ValueError("arguments must be a dict, sent with approve or approve_session")
        if message is not None and (decision != "deny" or not isinstance(message, str) or len(message) > 2000):
            raise ValueError("message goes with deny only, a str of at most 2000 characters")
        if tool_call_id is not None and tool_call_id not in [c.get("tool_call_id") for c in request.calls]:
            raise ValueError("tool_call_id %r is not a call of this request" % (tool_call_id,))
        event: JsonObject = {"type": "approval_response", "stream_id": request.stream_id,
                             "approval_id": request.approval_id, "decision": decision}
        if tool_call_id is not None:
            event["tool_call_id"] = tool_call_id
        if arguments is not None:
            event["arguments"] = arguments
        if message is not None:
            event["message"] = message
        await self._connected().send_control(_traced(event, traceparent, tracestate))

    async def respond_input(self, request: InputRequest, action: str, content: Optional[JsonObject] = None, *,
                            traceparent: Optional[str] = None, tracestate: Optional[str] = None) -> None:
        """Answers an ``input_request``: ``accept`` (with ``content``), ``decline`` or ``cancel``.

        ``traceparent`` / ``tracestate``: the trace context of the answering span, as for ``cancel``."""
        if action not in ("accept", "decline", "cancel"):
            raise ValueError("action must be accept, decline or cancel")
        event: JsonObject = {"type": "input_response", "stream_id": request.stream_id, "input_id": request.input_id,
                             "action": action}
        if content is not None:
            event["content"] = content
        await self._connected().send_control(_traced(event, traceparent, tracestate))

    async def list_tools(self, stream_id: str, context: Optional[Mapping[str, str]] = None, format: str = "openai",
                         timeout: float = 30.0, text: Optional[str] = None) -> List[JsonObject]:
        """The tool definitions this session may see, in ``openai``, ``anthropic`` or ``mcp`` format.

        ``text`` (the conversation text) lets toolbus's ``dispatch``, when configured, narrow the list to
        the tool groups the text needs; never beyond what the policy allows."""
        request_id = f"py-{uuid.uuid4().hex}"
        event: JsonObject = {"type": "list_tools", "stream_id": stream_id, "request_id": request_id,
                             "format": format}
        if context:
            event["context"] = dict(context)
        if text:
            event["text"] = text
        answer = await self._request(event, timeout)
        return answer.tools if isinstance(answer, ToolsEvent) else []

    async def list_skills(self, stream_id: str, text: Optional[str] = None, selected: Optional[Iterable[str]] = None,
                          context: Optional[Mapping[str, str]] = None, timeout: float = 30.0) -> SkillsEvent:
        """The skill catalogue and the skill texts to inject now (a ``SkillsEvent``), including the ones
        ``load_skill`` loaded on this stream (``documents`` of reason ``loaded``: re-inject them after
        compressing the context)."""
        request_id = f"py-{uuid.uuid4().hex}"
        event: JsonObject = {"type": "list_skills", "stream_id": stream_id, "request_id": request_id}
        if text:
            event["text"] = text
        if selected:
            event["selected"] = list(selected)
        if context:
            event["context"] = dict(context)
        answer = await self._request(event, timeout)
        if not isinstance(answer, SkillsEvent):
            raise TransportError(f"list_skills was answered with a {answer.type} event")
        return answer

    async def _request(self, event: JsonObject, timeout: float) -> Event:
        """Sends a request event and waits for the answer carrying its ``request_id``."""
        transport = self._connected()
        request_id = event["request_id"]
        future: "asyncio.Future[Event]" = asyncio.get_running_loop().create_future()
        self._requests[request_id] = future
        try:
            await transport.request(event)
            return await asyncio.wait_for(future, timeout)
        finally:
            self._requests.pop(request_id, None)
            transport.release(event["stream_id"])

    def _in_flight(self) -> List[JsonObject]:
        return [p.event for p in self._pending.values() if not p.future.done()]

    def _deliver(self, raw: JsonObject) -> None:
        if not isinstance(raw, dict):
            return
        if raw.get("type") == "_transport_lost":
            self._lost(raw)
            return
        try:
            event = parse_event(raw, self)
        except ValueError:
            return
        key = event.dedup_key()
        if key is not None and not self._seen.add(key):
            self.duplicates_dropped += 1
            return
        if isinstance(event, (ToolsEvent, SkillsEvent)):
            f = self._requests.get(event.request_id)
            if f is not None and not f.done():
                f.set_result(event)
            return
        pending = self._pending.get((event.stream_id or "", event.turn_id or ""))
        if isinstance(event, ErrorEvent):
            self._on_error_event(event, pending)
            return
        if pending is None:
            callbacks = self._callbacks
        else:
            callbacks = pending.callbacks
            pending.turn.events.append(event)
            if isinstance(event, TurnCompleted) and not pending.future.done():
                pending.future.set_result(pending.turn)
        cb = callbacks.get(event.type)
        if cb is not None:
            self._run_callback(cb, event)

    def _on_error_event(self, event: ErrorEvent, pending: Optional[_Pending]) -> None:
        if pending is not None and not pending.future.done() and event.code in ("BAD_EVENT", "REJECTED"):
            error: ToolbusError = BadEventError(event.message) if event.code == "BAD_EVENT" else RejectedError(
                event.message)
            pending.future.set_exception(error)
            return
        cb = (pending.callbacks if pending else self._callbacks).get("error")
        if cb is not None:
            self._run_callback(cb, event)
        else:
            log.warning("toolbus error event %s on %s: %s", event.code, event.stream_id, event.message)

    def _lost(self, raw: JsonObject) -> None:
        err = TransportError(raw.get("reason") or "the connection to toolbus was lost")
        for key, p in list(self._pending.items()):
            if raw.get("stream_id") and (raw.get("stream_id"), raw.get("turn_id")) != key:
                continue
            if not p.future.done():
                p.future.set_exception(err)

    def _run_callback(self, cb: Callback[Any], event: Event) -> None:
        async def run() -> None:
            try:
                result = cb(event)
                if inspect.isawaitable(result):
                    await result
            except ToolbusError as e:
                log.warning("a %s callback failed: %s", event.type, e)
            except Exception:  # noqa: BLE001 - a callback's bug must not stop the client
                log.exception("a %s callback raised", event.type)
        task = asyncio.ensure_future(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

