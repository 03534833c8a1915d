"""Python client of toolbus: run LLM tool-call turns and map their results into the next request.

    from toolbus import Client
    async with Client("http://127.0.0.1:8765", token="...") as tb:
        turn = await tb.run_turn("qq:group:1", assistant["tool_calls"], context={"user_id": "42"})
        messages += turn.to_openai()
"""

from .client import Call, Callback, Client
from .errors import (AuthenticationError, BadEventError, ForbiddenError, RejectedError, ToolbusError,
                     TransportError, TurnTimeoutError, UnknownRequestError)
from .events import (ApprovalRequest, ErrorEvent, Event, InputRequest, JsonObject, SendMessage, SkillsEvent,
                     ToolProgress, ToolResult, ToolsEvent, TurnCompleted, UserMessage, parse_event)
from .messages import anthropic, gemini, openai_chat, openai_responses
from .options import HttpOptions, KafkaOptions, RedisOptions, StdioOptions, TransportOptions, WebSocketOptions
from .turn import Turn

__all__ = [
    "Client", "Turn", "parse_event",
    "HttpOptions", "WebSocketOptions", "RedisOptions", "KafkaOptions", "StdioOptions", "TransportOptions",
    "Call", "Callback", "JsonObject",
    "Event", "ToolResult", "UserMessage", "TurnCompleted", "ToolProgress", "SendMessage", "ApprovalRequest",
    "InputRequest", "ErrorEvent", "ToolsEvent", "SkillsEvent",
    "openai_chat", "openai_responses", "anthropic", "gemini",
    "ToolbusError", "TransportError", "AuthenticationError", "ForbiddenError", "BadEventError", "RejectedError",
    "TurnTimeoutError", "UnknownRequestError",
]
__version__ = "0.1.0"
