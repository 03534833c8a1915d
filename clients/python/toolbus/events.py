"""The events toolbus publishes, parsed into small read-only objects.

Every object keeps the event as it arrived in ``raw``; fields toolbus adds later stay readable
there. ``parse_event`` never raises for an unknown ``type``: it returns an ``Event``.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, Hashable, List, Optional, Protocol, Tuple

#: A JSON object as the wire carries it.
JsonObject = Dict[str, Any]
#: What identifies an event across redeliveries.
DedupKey = Tuple[Hashable, ...]


class Responder(Protocol):
    """What answers an approval or a question: the ``Client`` the event arrived on."""

    async def respond_approval(self, request: "ApprovalRequest", decision: str, *,
                               tool_call_id: Optional[str] = None, arguments: Optional[JsonObject] = None,
                               message: Optional[str] = None) -> None: ...

    async def respond_input(self, request: "InputRequest", action: str,
                            content: Optional[JsonObject] = None) -> None: ...


@dataclass(frozen=True)
class Event:
    """Any event; the base of the typed ones."""

    type: str
    stream_id: Optional[str]
    turn_id: Optional[str]
    raw: JsonObject = field(repr=False, compare=False)
    #: W3C Trace Context of the span that produced the event (the call's, or the turn's), when it has one.
    traceparent: Optional[str] = field(default=None, repr=False, compare=False)
    tracestate: Optional[str] = field(default=None, repr=False, compare=False)

    def dedup_key(self) -> Optional[DedupKey]:
        """What identifies this event across redeliveries, or None when nothing does."""
        return None


@dataclass(frozen=True)
class ToolResult(Event):
    """The result of one call (``tool_result``); a failed call is one with ``is_error``."""

    tool_call_id: str = ""
    name: str = ""
    content: str = ""
    is_error: bool = False
    error_code: Optional[str] = None
    error_message: Optional[str] = None
    data: Any = None
    metadata: JsonObject = field(default_factory=dict)
    media: List[JsonObject] = field(default_factory=list)
    attempts: int = 0
    cached: bool = False
    elapsed_ms: int = 0
    #: With ``error_code == "RATE_LIMITED"``: milliseconds until a call may succeed; else None.
    retry_after_ms: Optional[int] = None

    def dedup_key(self) -> Optional[DedupKey]:
        return ("tool_result", self.stream_id, self.turn_id, self.tool_call_id)


@dataclass(frozen=True)
class UserMessage(Event):
    """A media follow-up of a tool result (``user_message``): it belongs in the LLM context."""

    message_id: str = ""
    tool_call_id: str = ""
    source: str = ""
    content: List[JsonObject] = field(default_factory=list)
    visible_text: str = ""

    def dedup_key(self) -> Optional[DedupKey]:
        return ("user_message", self.stream_id, self.message_id)


@dataclass(frozen=True)
class TurnCompleted(Event):
    """The last event of a turn (``turn_completed``)."""

    tool_call_ids: List[str] = field(default_factory=list)
    error_count: int = 0
    elapsed_ms: int = 0

    def dedup_key(self) -> Optional[DedupKey]:
        return ("turn_completed", self.stream_id, self.turn_id)


@dataclass(frozen=True)
class ToolProgress(Event):
    """A running call's progress (``tool_progress``)."""

    tool_call_id: str = ""
    name: str = ""
    progress: float = 0.0
    total: Optional[float] = None
    message: Optional[str] = None

    def dedup_key(self) -> Optional[DedupKey]:
        return ("tool_progress", self.stream_id, self.tool_call_id, self.progress, self.total, self.message)


@dataclass(frozen=True)
class SendMessage(Event):
    """A message a tool sends to the chat now (``send_message``); not part of the LLM context."""

    tool_call_id: str = ""
    message_id: str = ""
    content: List[JsonObject] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The text parts joined by newlines."""
        return "\n".join(str(p.get("text", "")) for p in self.content if p.get("type") == "text")

    def dedup_key(self) -> Optional[DedupKey]:
        return ("send_message", self.stream_id, self.message_id)


@dataclass(frozen=True)
class ApprovalRequest(Event):
    """Calls that wait for a human yes. Answer with ``approve()``, ``deny()`` or ``approve_session()``."""

    approval_id: str = ""
    expires_at_ms: int = 0
    calls: List[JsonObject] = field(default_factory=list)
    text: str = ""
    _client: Optional[Responder] = field(default=None, repr=False, compare=False)

    def dedup_key(self) -> Optional[DedupKey]:
        return ("approval_request", self.stream_id, self.approval_id)

    async def approve(self, tool_call_id: Optional[str] = None, arguments: Optional[JsonObject] = None) -> None:
        """Approves every call not answered yet, or only ``tool_call_id``; ``arguments`` replaces that call's
        arguments (the user's edit; needs ``tool_call_id`` unless the request has one call)."""
        await self._responder().respond_approval(self, "approve", tool_call_id=tool_call_id, arguments=arguments)

    async def deny(self, message: Optional[str] = None, tool_call_id: Optional[str] = None) -> None:
        """Denies every call not answered yet, or only ``tool_call_id``; the model reads ``message`` (at most
        2,000 characters) as the reason."""
        await self._responder().respond_approval(self, "deny", tool_call_id=tool_call_id, message=message)

    async def approve_session(self, tool_call_id: Optional[str] = None, arguments: Optional[JsonObject] = None) -> None:
        """Approves these calls, and the same tools for the rest of the session up to its risk cap."""
        await self._responder().respond_approval(self, "approve_session", tool_call_id=tool_call_id,
                                                 arguments=arguments)

    def _responder(self) -> Responder:
        if self._client is None:
            raise RuntimeError("this approval_request was not received by a Client: answer it with one")
        return self._client


@dataclass(frozen=True)
class InputRequest(Event):
    """A tool asks the user a question. Answer with ``accept(content)``, ``decline()`` or ``cancel()``."""

    tool_call_id: str = ""
    input_id: str = ""
    expires_at_ms: int = 0
    message: str = ""
    schema: JsonObject = field(default_factory=dict)
    _client: Optional[Responder] = field(default=None, repr=False, compare=False)

    def dedup_key(self) -> Optional[DedupKey]:
        return ("input_request", self.stream_id, self.input_id)

    async def accept(self, content: JsonObject) -> None:
        await self._responder().respond_input(self, "accept", content)

    async def decline(self) -> None:
        await self._responder().respond_input(self, "decline")

    async def cancel(self) -> None:
        await self._responder().respond_input(self, "cancel")

    def _responder(self) -> Responder:
        if self._client is None:
            raise RuntimeError("this input_request was not received by a Client: answer it with one")
        return self._client


@dataclass(frozen=True)
class ErrorEvent(Event):
    """An ``error`` event: a bad event, a refused turn, an unknown approval or question, a dead letter."""

    code: str = ""
    message: str = ""


@dataclass(frozen=True)
class ToolsEvent(Event):
    """The answer to ``list_tools``."""

    request_id: str = ""
    format: str = ""
    tools: List[JsonObject] = field(default_factory=list)


@dataclass(frozen=True)
class SkillsEvent(Event):
    """The answer to ``list_skills``: the catalogue and the skill texts to put into the prompt now."""

    request_id: str = ""
    mode: str = ""
    skills: List[JsonObject] = field(default_factory=list)
    skills_omitted: int = 0
    documents: List[JsonObject] = field(default_factory=list)
    loaded: List[str] = field(default_factory=list)
    missing: List[str] = field(default_factory=list)
    omitted: List[str] = field(default_factory=list)
    truncated: bool = False


def parse_event(raw: JsonObject, client: Optional[Responder] = None) -> Event:
    """Turns one decoded JSON object into the matching event object.

    :raises ValueError: when ``raw`` is not a JSON object
    """
    if not isinstance(raw, dict):
        raise ValueError(f"an event must be a JSON object, got {type(raw).__name__}")
    kind = raw.get("type")
    stream_id = raw.get("stream_id")
    turn_id = raw.get("turn_id")
    base_type = kind if isinstance(kind, str) else ""
    trace = dict(traceparent=raw.get("traceparent"), tracestate=raw.get("tracestate"))
    if kind == "tool_result":
        err = raw.get("error") or {}
        return ToolResult(base_type, stream_id, turn_id, raw, tool_call_id=raw.get("tool_call_id", ""),
                          name=raw.get("name", ""), content=raw.get("content", ""), is_error=bool(raw.get("is_error")),
                          error_code=err.get("code"), error_message=err.get("message"),
                          data=raw.get("data"), metadata=raw.get("metadata") or {},
                          media=raw.get("media") or [], attempts=raw.get("attempts", 0),
                          cached=bool(raw.get("cached")), elapsed_ms=raw.get("elapsed_ms", 0),
                          retry_after_ms=err.get("retry_after_ms"), **trace)
    if kind == "user_message":
        return UserMessage(base_type, stream_id, turn_id, raw, message_id=raw.get("message_id", ""),
                           tool_call_id=raw.get("tool_call_id", ""), source=raw.get("source", ""),
                           content=raw.get("content") or [], visible_text=raw.get("visible_text", ""), **trace)
    if kind == "turn_completed":
        return TurnCompleted(base_type, stream_id, turn_id, raw, tool_call_ids=raw.get("tool_call_ids") or [],
                             error_count=raw.get("error_count", 0), elapsed_ms=raw.get("elapsed_ms", 0), **trace)
    if kind == "tool_progress":
        return ToolProgress(base_type, stream_id, turn_id, raw, tool_call_id=raw.get("tool_call_id", ""),
                            name=raw.get("name", ""), progress=raw.get("progress", 0), total=raw.get("total"),
                            message=raw.get("message"), **trace)
    if kind == "send_message":
        return SendMessage(base_type, stream_id, turn_id, raw, tool_call_id=raw.get("tool_call_id", ""),
                           message_id=raw.get("message_id", ""), content=raw.get("content") or [], **trace)
    if kind == "approval_request":
        return ApprovalRequest(base_type, stream_id, turn_id, raw, approval_id=raw.get("approval_id", ""),
                               expires_at_ms=raw.get("expires_at_ms", 0), calls=raw.get("calls") or [],
                               text=raw.get("text", ""), _client=client, **trace)
    if kind == "input_request":
        return InputRequest(base_type, stream_id, turn_id, raw, tool_call_id=raw.get("tool_call_id", ""),
                            input_id=raw.get("input_id", ""), expires_at_ms=raw.get("expires_at_ms", 0),
                            message=raw.get("message", ""), schema=raw.get("schema") or {}, _client=client, **trace)
    if kind == "error":
        return ErrorEvent(base_type, stream_id, turn_id, raw, code=raw.get("code", ""),
                          message=raw.get("message", ""), **trace)
    if kind == "skills":
        return SkillsEvent(base_type, stream_id, turn_id, raw, request_id=raw.get("request_id", ""),
                           mode=raw.get("mode", ""), skills=raw.get("skills") or [],
                           skills_omitted=raw.get("skills_omitted", 0), documents=raw.get("documents") or [],
                           loaded=raw.get("loaded") or [], missing=raw.get("missing") or [],
                           omitted=raw.get("omitted") or [], truncated=bool(raw.get("truncated")), **trace)
    if kind == "tools":
        return ToolsEvent(base_type, stream_id, turn_id, raw, request_id=raw.get("request_id", ""),
                          format=raw.get("format", ""), tools=raw.get("tools") or [], **trace)
    return Event(base_type, stream_id, turn_id, raw, **trace)
