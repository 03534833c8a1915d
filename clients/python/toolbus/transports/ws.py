"""The gateway's WebSocket ``/v1/ws`` (needs the ``websockets`` package: the ``websockets`` extra).

One connection carries every stream. When it drops, the transport reconnects with backoff and sends
the turns still in flight again under their own ids; the client drops the duplicates this causes.
"""

import asyncio
import json
from typing import Any, Callable, Dict, List, Optional

from ..errors import AuthenticationError, ToolbusError, TransportError
from ..options import WebSocketOptions
from . import Deliver

MAX_RECONNECT_ATTEMPTS = 20


class WebSocketTransport:
    def __init__(self, url: str, token: Optional[str], deliver: Deliver,
                 in_flight: Callable[[], List[Dict[str, Any]]], options: WebSocketOptions = WebSocketOptions(),
                 max_reconnect_attempts: int = MAX_RECONNECT_ATTEMPTS):
        try:
            import websockets  # noqa: F401
        except ImportError as e:  # pragma: no cover - depends on the installation
            raise TransportError("the WebSocket transport needs the 'websockets' package "
                                 "(pip install 'toolbus-client[websockets]', or Debian's python3-websockets)") from e
        self._url = url
        self._token = token
        self._deliver = deliver
        self._in_flight = in_flight
        self._reconnect = options.reconnect
        self._max_attempts = max_reconnect_attempts
        self._ws: Any = None
        self._reader: "Optional[asyncio.Future[None]]" = None
        self._closing = False
        self._connected = asyncio.Event()
        # set when the connection will not come back (reconnecting gave up, or close); wakes waiting sends
        self._lost: Optional[ToolbusError] = None
        self.reconnects = 0

    async def start(self) -> None:
        await self._connect()
        self._reader = asyncio.ensure_future(self._read_loop())

    async def close(self) -> None:
        self._closing = True
        self._give_up(TransportError("the client was closed"))
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except BaseException:  # noqa: BLE001
                pass

    async def send_turn(self, event: Dict[str, Any]) -> None:
        await self._send(event)

    async def send_control(self, event: Dict[str, Any]) -> None:
        await self._send(event)

    async def request(self, event: Dict[str, Any]) -> None:
        await self._send(event)

    def release(self, stream_id: str) -> None:
        """One connection carries every conversation: nothing to stop following."""

    async def _send(self, event: Dict[str, Any]) -> None:
        text = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        for _ in range(self._max_attempts + 1):
            await self._connected.wait()
            if self._lost is not None:
                raise self._lost
            try:
                await self._ws.send(text)
                return
            except Exception:  # noqa: BLE001 - a dropped socket; the read loop reconnects
                self._connected.clear()
                if not self._reconnect or self._closing:
                    raise TransportError("the WebSocket to toolbus is closed")
        raise TransportError("could not send to toolbus: the WebSocket keeps dropping")

    async def _connect(self) -> None:
        from websockets.client import connect
        from websockets.exceptions import InvalidStatusCode, WebSocketException
        headers = {"Authorization": f"Bearer {self._token}"} if self._token else {}
        try:
            self._ws = await connect(self._url, extra_headers=headers, max_size=64 * 1024 * 1024, ping_interval=20,
                                     open_timeout=10)
        except InvalidStatusCode as e:
            if e.status_code == 401:
                raise AuthenticationError("toolbus refused the token (401)") from e
            raise TransportError(f"WebSocket upgrade refused: HTTP {e.status_code}") from e
        except (OSError, EOFError, asyncio.TimeoutError, WebSocketException) as e:
            # a refused or reset connection, or a handshake cut short (InvalidMessage): try again later
            raise TransportError(f"cannot reach toolbus at {self._url}: {e}") from e
        self._connected.set()

    async def _read_loop(self) -> None:
        while not self._closing:
            try:
                async for frame in self._ws:
                    if isinstance(frame, bytes):
                        frame = frame.decode("utf-8", "replace")
                    try:
                        self._deliver(json.loads(frame))
                    except ValueError:
                        continue
            except Exception:  # noqa: BLE001 - any drop ends up here
                pass
            self._connected.clear()
            if self._closing:
                return
            try:
                back = self._reconnect and await self._reconnect_with_backoff()
            except Exception:  # noqa: BLE001 - e.g. the token refused on reconnect: the connection is lost
                back = False
            if not back:
                self._give_up(TransportError("the WebSocket to toolbus closed"))
                self._deliver({"type": "_transport_lost", "reason": "the WebSocket to toolbus closed"})
                return

    def _give_up(self, error: ToolbusError) -> None:
        if self._lost is None:
            self._lost = error
        self._connected.set()

    async def _reconnect_with_backoff(self) -> bool:
        delay = 0.05
        for _ in range(self._max_attempts):
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)
            try:
                await self._connect()
            except TransportError:
                continue
            self.reconnects += 1
            for event in self._in_flight():
                try:
                    await self._ws.send(json.dumps(event, ensure_ascii=False, separators=(",", ":")))
                except Exception:  # noqa: BLE001 - dropped again; the loop tries once more
                    break
            return True
        return False
