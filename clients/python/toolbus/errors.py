"""Typed errors of the toolbus client.

Failures of single tool calls are not exceptions: they arrive as ``ToolResult``s with
``is_error`` set. These exceptions are for what stops a turn from being run or answered.
"""

from typing import Any, Dict, Optional


class ToolbusError(Exception):
    """Base class of every error this package raises."""


class TransportError(ToolbusError):
    """The connection to toolbus failed or closed, and could not be restored."""


class AuthenticationError(ToolbusError):
    """The server refused the bearer token (HTTP 401, or a refused WebSocket upgrade)."""


class ForbiddenError(ToolbusError):
    """The token is valid but may not do this (HTTP 403: a stream, agent or permission outside its scope)."""


class BadEventError(ToolbusError):
    """toolbus could not decode the event that was sent (a ``BAD_EVENT`` error)."""

    def __init__(self, message: str, event: Optional[Dict[str, Any]] = None):
        super().__init__(message)
        self.event = event


class RejectedError(ToolbusError):
    """toolbus is shutting down or overloaded and did not take the turn."""


class TurnTimeoutError(ToolbusError):
    """No ``turn_completed`` arrived within the client's timeout."""


class UnknownRequestError(ToolbusError):
    """An approval or input answer named an id that toolbus does not wait for (``UNKNOWN_REQUEST``)."""

    def __init__(self, message: str, event: Optional[Dict[str, Any]] = None):
        super().__init__(message)
        self.event = event
