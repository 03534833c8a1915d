"""The answer to one turn: its events, and their mapping into the next LLM request."""

from dataclasses import dataclass, field
from typing import List, Optional

from . import messages
from .events import Event, JsonObject, ToolResult, TurnCompleted, UserMessage


@dataclass
class Turn:
    """Every event of one turn, deduplicated, in the order toolbus published them."""

    stream_id: str
    turn_id: str
    events: List[Event] = field(default_factory=list)

    @property
    def results(self) -> List[ToolResult]:
        """The ``tool_result``s, in call order."""
        return [e for e in self.events if isinstance(e, ToolResult)]

    @property
    def media(self) -> List[UserMessage]:
        """The media follow-ups (``user_message``), in publish order."""
        return [e for e in self.events if isinstance(e, UserMessage)]

    @property
    def completed(self) -> Optional[TurnCompleted]:
        """The ``turn_completed`` event, once it arrived."""
        for e in self.events:
            if isinstance(e, TurnCompleted):
                return e
        return None

    @property
    def error_count(self) -> int:
        """How many results are errors."""
        return sum(1 for r in self.results if r.is_error)

    def result(self, tool_call_id: str) -> Optional[ToolResult]:
        """The result of one call, or None."""
        for r in self.results:
            if r.tool_call_id == tool_call_id:
                return r
        return None

    def to_openai(self) -> List[JsonObject]:
        """Messages for OpenAI Chat Completions: tool messages in call order, then user messages with image parts."""
        return messages.openai_chat(self.results, self.media)

    def to_openai_responses(self) -> List[JsonObject]:
        """Input items for the OpenAI Responses API."""
        return messages.openai_responses(self.results, self.media)

    def to_anthropic(self) -> List[JsonObject]:
        """Messages for Anthropic Messages: one user message, tool_result blocks first, then images."""
        return messages.anthropic(self.results, self.media)

    def to_gemini(self) -> List[JsonObject]:
        """Contents for Gemini: functionResponse parts, then the media parts."""
        return messages.gemini(self.results, self.media)
