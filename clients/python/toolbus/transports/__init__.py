"""The transports a ``Client`` runs on; one per URL scheme, each in its own module (imported on use,
so an optional package is needed only by its own transport)."""

from typing import Any, Callable, Dict, Protocol

#: A decoded event handed to the client (or ``{"type": "_transport_lost", ...}`` when a connection is gone).
Deliver = Callable[[Dict[str, Any]], None]


class Transport(Protocol):
    """What the client needs of a transport."""

    async def start(self) -> None:
        """Connects; raises ``TransportError`` (or ``AuthenticationError``) when it cannot."""

    async def close(self) -> None:
        """Releases the connection and every task; idempotent."""

    async def send_turn(self, event: Dict[str, Any]) -> None:
        """Sends a ``tool_calls`` event; its events are delivered from now on."""

    async def send_control(self, event: Dict[str, Any]) -> None:
        """Sends a control event (cancel, approval or input response)."""

    async def request(self, event: Dict[str, Any]) -> None:
        """Sends a request (``list_tools``, ``list_skills``); its answer is delivered."""

    def release(self, stream_id: str) -> None:
        """Nothing more is in flight on the conversation: the transport may stop following it."""
