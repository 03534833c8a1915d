"""``Client``: run the tool calls of an assistant turn on toolbus and get their results back."""

import asyncio
import inspect
import logging
import uuid

from .dedup import SeenKeys
from .errors import BadEventError, RejectedError, TransportError, TurnTimeoutError, ToolbusError
from .events import ErrorEvent, SkillsEvent, ToolsEvent, TurnCompleted, parse_event
from .turn import Turn

log = logging.getLogger("toolbus")


class _Pending:
    __slots__ = ("event", "turn", "future", "callbacks")

    def __init__(self, event, turn, future, callbacks):
        self.event = event
        self.turn = turn
        self.future = future
        self.callbacks = callbacks


def _call_item(call):
    """Accepts a toolbus call, an OpenAI ``tool_calls`` item or an Anthropic ``tool_use`` block."""
    if not isinstance(call, dict):
        raise TypeError("a call must be a dict, got %s" % type(call).__name__)
    if call.get("type") == "tool_use":
        return {"tool_call_id": call.get("id"), "name": call.get("name"), "arguments": call.get("input") or {}}
    if call.get("type") == "function_call" and "call_id" in call:  # OpenAI Responses output item
        return {"tool_call_id": call["call_id"], "name": call.get("name"), "arguments": call.get("arguments")}
    return call


class Client:
    """A connection to toolbus over one transport, chosen by the URL.

    ``http://`` / ``https://`` (the gateway, HTTP and SSE), ``ws://`` / ``wss://`` (the gateway's
    WebSocket ``/v1/ws``), ``redis://`` (Redis Streams) or ``stdio:`` (a sidecar process started
    with ``command``). Use it as an async context manager::

        async with Client("http://127.0.0.1:8765", token="...") as tb:
            turn = await tb.run_turn("qq:group:1", assistant["tool_calls"], context={"user_id": "42"})
            messages += turn.to_openai()

    Callbacks (plain functions or coroutines) receive the live events of a turn:
    ``on_approval_request(ApprovalRequest)``, ``on_input_request(InputRequest)``,
    ``on_send_message(SendMessage)``, ``on_progress(ToolProgress)``, ``on_error(ErrorEvent)``.
    Events are deduplicated by their ids, since every transport delivers at least once.
    """

    def __init__(self, url, token=None, *, command=None, env=None, timeout=300.0, reconnect=True,
                 on_approval_request=None, on_input_request=None, on_send_message=None, on_progress=None,
                 on_error=None, calls_stream="toolbus:calls", results_key="toolbus:results:{stream_id}",
                 dedup_capacity=10000):
        self.url = url
        self._token = token
        self._command = command
        self._env = env
        self._timeout = timeout
        self._reconnect = reconnect
        self._callbacks = {"approval_request": on_approval_request, "input_request": on_input_request,
                           "send_message": on_send_message, "tool_progress": on_progress, "error": on_error}
        self._calls_stream = calls_stream
        self._results_key = results_key
        self._seen = SeenKeys(dedup_capacity)
        self._pending = {}
        self._requests = {}
        self._tasks = set()
        self._transport = None
        self.duplicates_dropped = 0

    async def __aenter__(self):
        await self.connect()
        return self

    async def __aexit__(self, *exc):
        await self.close()

    async def connect(self):
        scheme = self.url.split(":", 1)[0].lower()
        if scheme in ("http", "https"):
            from .transports.http import HttpTransport
            self._transport = HttpTransport(self.url, self._token, self._deliver)
        elif scheme in ("ws", "wss"):
            from .transports.ws import WebSocketTransport
            self._transport = WebSocketTransport(self.url, self._token, self._deliver, self._in_flight,
                                                 reconnect=self._reconnect)
        elif scheme == "redis" or scheme == "rediss":
            from .transports.redis_streams import RedisTransport
            self._transport = RedisTransport(self.url, self._deliver, self._calls_stream, self._results_key)
        elif scheme == "stdio":
            from .transports.stdio import StdioTransport
            self._transport = StdioTransport(self._command, self._deliver, self._env)
        else:
            raise ValueError("unsupported toolbus URL %r (http, https, ws, wss, redis or stdio:)" % self.url)
        await self._transport.start()

    async def close(self):
        for p in list(self._pending.values()):
            if not p.future.done():
                p.future.set_exception(TransportError("the client was closed"))
        if self._transport is not None:
            await self._transport.close()
        for t in list(self._tasks):
            t.cancel()

    @property
    def transport(self):
        return self._transport

    async def run_turn(self, stream_id, calls, *, context=None, message=None, turn_id=None, timeout=None,
                       traceparent=None, tracestate=None,
                       on_approval_request=None, on_input_request=None, on_send_message=None, on_progress=None):
        """Runs the calls of one assistant turn and returns its ``Turn`` once ``turn_completed`` arrived.

        ``calls``: toolbus calls, OpenAI ``tool_calls`` items or Anthropic ``tool_use`` blocks, in
        the model's order. ``traceparent`` / ``tracestate`` (W3C Trace Context, e.g. of the span
        around the LLM request) continue the bot core's trace through toolbus; every event comes back
        with the trace context of its span (``event.traceparent``). Per-turn callbacks replace the
        client's for this turn.
        """
        if not isinstance(stream_id, str) or not stream_id.strip():
            raise ValueError("stream_id must be a non-blank string")
        turn_id = turn_id or "py-%s" % uuid.uuid4().hex
        event = {"type": "tool_calls", "stream_id": stream_id, "turn_id": turn_id,
                 "calls": [_call_item(c) for c in calls]}
        if context:
            event["context"] = dict(context)
        if message is not None:
            event["message"] = message
        if traceparent is not None:
            event["traceparent"] = traceparent
            if tracestate is not None:
                event["tracestate"] = tracestate
        key = (stream_id, turn_id)
        if key in self._pending:
            raise ValueError("turn %s of stream %s is already running on this client" % (turn_id, stream_id))
        callbacks = dict(self._callbacks)
        for name, cb in (("approval_request", on_approval_request), ("input_request", on_input_request),
                         ("send_message", on_send_message), ("tool_progress", on_progress)):
            if cb is not None:
                callbacks[name] = cb
        future = asyncio.get_running_loop().create_future()
        self._pending[key] = _Pending(event, Turn(stream_id, turn_id), future, callbacks)
        try:
            await self._transport.send_turn(event)
            return await asyncio.wait_for(asyncio.shield(future), timeout or self._timeout)
        except asyncio.TimeoutError:
            raise TurnTimeoutError("no turn_completed for turn %s of %s within %ss"
                                   % (turn_id, stream_id, timeout or self._timeout)) from None
        finally:
            self._pending.pop(key, None)
            release = getattr(self._transport, "release", None)
            if release is not None:
                release(stream_id)

    async def cancel(self, stream_id, turn_id=None, tool_call_id=None, reason=None):
        """Cancels one call, every unfinished call of a turn, or (no ``turn_id``) every turn of the stream."""
        event = {"type": "cancel", "stream_id": stream_id}
        if turn_id is not None:
            event["turn_id"] = turn_id
        if tool_call_id is not None:
            event["tool_call_id"] = tool_call_id
        if reason:
            event["reason"] = reason
        await self._transport.send_control(event)

    async def respond_approval(self, request, decision):
        """Answers an ``approval_request``: ``approve``, ``deny`` or ``approve_session``."""
        if decision not in ("approve", "deny", "approve_session"):
            raise ValueError("decision must be approve, deny or approve_session")
        await self._transport.send_control({"type": "approval_response", "stream_id": request.stream_id,
                                            "approval_id": request.approval_id, "decision": decision})

    async def respond_input(self, request, action, content=None):
        """Answers an ``input_request``: ``accept`` (with ``content``), ``decline`` or ``cancel``."""
        if action not in ("accept", "decline", "cancel"):
            raise ValueError("action must be accept, decline or cancel")
        event = {"type": "input_response", "stream_id": request.stream_id, "input_id": request.input_id,
                 "action": action}
        if content is not None:
            event["content"] = content
        await self._transport.send_control(event)

    async def list_tools(self, stream_id, context=None, format="openai", timeout=30.0, text=None):
        """The tool definitions this session may see, in ``openai``, ``anthropic`` or ``mcp`` format.

        ``text`` (the conversation text) lets toolbus's ``dispatch``, when configured, narrow the list to
        the tool groups the text needs; never beyond what the policy allows."""
        request_id = "py-%s" % uuid.uuid4().hex
        event = {"type": "list_tools", "stream_id": stream_id, "request_id": request_id, "format": format}
        if context:
            event["context"] = dict(context)
        if text:
            event["text"] = text
        tools = await self._request(event, timeout)
        return tools.tools

    async def list_skills(self, stream_id, text=None, selected=None, context=None, timeout=30.0):
        """The skill catalogue and the skill texts to inject now (a ``SkillsEvent``), including the ones
        ``load_skill`` loaded on this stream (``documents`` of reason ``loaded``: re-inject them after
        compressing the context)."""
        request_id = "py-%s" % uuid.uuid4().hex
        event = {"type": "list_skills", "stream_id": stream_id, "request_id": request_id}
        if text:
            event["text"] = text
        if selected:
            event["selected"] = list(selected)
        if context:
            event["context"] = dict(context)
        return await self._request(event, timeout)

    async def _request(self, event, timeout):
        """Sends a request event and waits for the answer carrying its ``request_id``."""
        request_id = event["request_id"]
        future = asyncio.get_running_loop().create_future()
        self._requests[request_id] = future
        try:
            await self._transport.request(event)
            return await asyncio.wait_for(future, timeout)
        finally:
            self._requests.pop(request_id, None)
            release = getattr(self._transport, "release", None)
            if release is not None:
                release(event["stream_id"])

    def _in_flight(self):
        return [p.event for p in self._pending.values() if not p.future.done()]

    def _deliver(self, raw):
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
        pending = self._pending.get((event.stream_id, event.turn_id))
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

    def _on_error_event(self, event, pending):
        if pending is not None and not pending.future.done() and event.code in ("BAD_EVENT", "REJECTED"):
            cls = BadEventError if event.code == "BAD_EVENT" else RejectedError
            pending.future.set_exception(cls(event.message))
            return
        cb = (pending.callbacks if pending else self._callbacks).get("error")
        if cb is not None:
            self._run_callback(cb, event)
        else:
            log.warning("toolbus error event %s on %s: %s", event.code, event.stream_id, event.message)

    def _lost(self, raw):
        err = TransportError(raw.get("reason") or "the connection to toolbus was lost")
        for key, p in list(self._pending.items()):
            if raw.get("stream_id") and (raw.get("stream_id"), raw.get("turn_id")) != key:
                continue
            if not p.future.done():
                p.future.set_exception(err)

    def _run_callback(self, cb, event):
        async def run():
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
