"""The events toolbus publishes, parsed into small read-only objects.

Every object keeps the event as it arrived in ``raw``; fields toolbus adds later stay readable
there. ``parse_event`` never raises for an unknown ``type``: it returns an ``Event``.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass(frozen=True)
class Event:
    """Any event; the base of the typed ones."""

    type: str
    stream_id: Optional[str]
    turn_id: Optional[str]
    raw: Dict[str, Any] = field(repr=False, compare=False)
    # W3C Trace Context of the span that produced the event (the call's, or the turn's), when it has one
    traceparent: Optional[str] = field(default=None, repr=False, compare=False)
    tracestate: Optional[str] = field(default=None, repr=False, compare=False)

    def dedup_key(self):
        """What identifies this event across redeliveries, or None when nothing does."""
        return None


@dataclass(frozen=True)
class ToolResult(Event):
    tool_call_id: str = ""
    name: str = ""
    content: str = ""
    is_error: bool = False
    error_code: Optional[str] = None
    error_message: Optional[str] = None
    data: Any = None
    metadata: Dict[str, Any] = field(default_factory=dict)
    media: List[Dict[str, Any]] = field(default_factory=list)
    attempts: int = 0
    cached: bool = False
    elapsed_ms: int = 0
    #: With ``error_code == "RATE_LIMITED"``: milliseconds until a call may succeed; else None.
    retry_after_ms: Optional[int] = None

    def dedup_key(self):
        return ("tool_result", self.stream_id, self.turn_id, self.tool_call_id)


@dataclass(frozen=True)
class UserMessage(Event):
    """A media follow-up of a tool result (``user_message``): it belongs in the LLM context."""

    message_id: str = ""
    tool_call_id: str = ""
    source: str = ""
    content: List[Dict[str, Any]] = field(default_factory=list)
    visible_text: str = ""

    def dedup_key(self):
        return ("user_message", self.stream_id, self.message_id)


@dataclass(frozen=True)
class TurnCompleted(Event):
    tool_call_ids: List[str] = field(default_factory=list)
    error_count: int = 0
    elapsed_ms: int = 0

    def dedup_key(self):
        return ("turn_completed", self.stream_id, self.turn_id)


@dataclass(frozen=True)
class ToolProgress(Event):
    tool_call_id: str = ""
    name: str = ""
    progress: float = 0.0
    total: Optional[float] = None
    message: Optional[str] = None

    def dedup_key(self):
        return ("tool_progress", self.stream_id, self.tool_call_id, self.progress, self.total, self.message)


@dataclass(frozen=True)
class SendMessage(Event):
    """A message a tool sends to the chat now (``send_message``); not part of the LLM context."""

    tool_call_id: str = ""
    message_id: str = ""
    content: List[Dict[str, Any]] = field(default_factory=list)

    @property
    def text(self):
        """The text parts joined by newlines."""
        return "\n".join(p.get("text", "") for p in self.content if p.get("type") == "text")

    def dedup_key(self):
        return ("send_message", self.stream_id, self.message_id)


@dataclass(frozen=True)
class ApprovalRequest(Event):
    """Calls that wait for a human yes. Answer with ``approve()``, ``deny()`` or ``approve_session()``."""

    approval_id: str = ""
    expires_at_ms: int = 0
    calls: List[Dict[str, Any]] = field(default_factory=list)
    text: str = ""
    _client: Any = field(default=None, repr=False, compare=False)

    def dedup_key(self):
        return ("approval_request", self.stream_id, self.approval_id)

    async def approve(self):
        await self._client.respond_approval(self, "approve")

    async def deny(self):
        await self._client.respond_approval(self, "deny")

    async def approve_session(self):
        await self._client.respond_approval(self, "approve_session")


@dataclass(frozen=True)
class InputRequest(Event):
    """A tool asks the user a question. Answer with ``accept(content)``, ``decline()`` or ``cancel()``."""

    tool_call_id: str = ""
    input_id: str = ""
    expires_at_ms: int = 0
    message: str = ""
    schema: Dict[str, Any] = field(default_factory=dict)
    _client: Any = field(default=None, repr=False, compare=False)

    def dedup_key(self):
        return ("input_request", self.stream_id, self.input_id)

    async def accept(self, content):
        await self._client.respond_input(self, "accept", content)

    async def decline(self):
        await self._client.respond_input(self, "decline")

    async def cancel(self):
        await self._client.respond_input(self, "cancel")


@dataclass(frozen=True)
class ErrorEvent(Event):
    code: str = ""
    message: str = ""


@dataclass(frozen=True)
class ToolsEvent(Event):
    request_id: str = ""
    format: str = ""
    tools: List[Dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class SkillsEvent(Event):
    """The answer to ``list_skills``: the catalogue and the skill texts to put into the prompt now."""
    request_id: str = ""
    mode: str = ""
    skills: List[Dict[str, Any]] = field(default_factory=list)
    skills_omitted: int = 0
    documents: List[Dict[str, Any]] = field(default_factory=list)
    loaded: List[str] = field(default_factory=list)
    missing: List[str] = field(default_factory=list)
    omitted: List[str] = field(default_factory=list)
    truncated: bool = False


def parse_event(raw, client=None):
    """Turns one decoded JSON object into the matching event object."""
    if not isinstance(raw, dict):
        raise ValueError("an event must be a JSON object, got %s" % type(raw).__name__)
    kind = raw.get("type")
    base = dict(type=kind if isinstance(kind, str) else "", stream_id=raw.get("stream_id"),
                turn_id=raw.get("turn_id"), raw=raw, traceparent=raw.get("traceparent"),
                tracestate=raw.get("tracestate"))
    if kind == "tool_result":
        err = raw.get("error") or {}
        return ToolResult(tool_call_id=raw.get("tool_call_id", ""), name=raw.get("name", ""),
                          content=raw.get("content", ""), is_error=bool(raw.get("is_error")),
                          error_code=err.get("code"), error_message=err.get("message"),
                          data=raw.get("data"), metadata=raw.get("metadata") or {},
                          media=raw.get("media") or [], attempts=raw.get("attempts", 0),
                          cached=bool(raw.get("cached")), elapsed_ms=raw.get("elapsed_ms", 0),
                          retry_after_ms=err.get("retry_after_ms"), **base)
    if kind == "user_message":
        return UserMessage(message_id=raw.get("message_id", ""), tool_call_id=raw.get("tool_call_id", ""),
                           source=raw.get("source", ""), content=raw.get("content") or [],
                           visible_text=raw.get("visible_text", ""), **base)
    if kind == "turn_completed":
        return TurnCompleted(tool_call_ids=raw.get("tool_call_ids") or [], error_count=raw.get("error_count", 0),
                             elapsed_ms=raw.get("elapsed_ms", 0), **base)
    if kind == "tool_progress":
        return ToolProgress(tool_call_id=raw.get("tool_call_id", ""), name=raw.get("name", ""),
                            progress=raw.get("progress", 0), total=raw.get("total"),
                            message=raw.get("message"), **base)
    if kind == "send_message":
        return SendMessage(tool_call_id=raw.get("tool_call_id", ""), message_id=raw.get("message_id", ""),
                           content=raw.get("content") or [], **base)
    if kind == "approval_request":
        return ApprovalRequest(approval_id=raw.get("approval_id", ""), expires_at_ms=raw.get("expires_at_ms", 0),
                               calls=raw.get("calls") or [], text=raw.get("text", ""), _client=client, **base)
    if kind == "input_request":
        return InputRequest(tool_call_id=raw.get("tool_call_id", ""), input_id=raw.get("input_id", ""),
                            expires_at_ms=raw.get("expires_at_ms", 0), message=raw.get("message", ""),
                            schema=raw.get("schema") or {}, _client=client, **base)
    if kind == "error":
        return ErrorEvent(code=raw.get("code", ""), message=raw.get("message", ""), **base)
    if kind == "skills":
        return SkillsEvent(request_id=raw.get("request_id", ""), mode=raw.get("mode", ""),
                           skills=raw.get("skills") or [], skills_omitted=raw.get("skills_omitted", 0),
                           documents=raw.get("documents") or [], loaded=raw.get("loaded") or [],
                           missing=raw.get("missing") or [], omitted=raw.get("omitted") or [],
                           truncated=bool(raw.get("truncated")), **base)
    if kind == "tools":
        return ToolsEvent(request_id=raw.get("request_id", ""), format=raw.get("format", ""),
                          tools=raw.get("tools") or [], **base)
    return Event(**base)
