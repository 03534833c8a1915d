"""Redis Streams (needs the ``redis`` package: the ``redis`` extra).

Turns and control events are added to the calls stream (``toolbus:calls``) as an entry with one field
``event``; toolbus writes each conversation's events to ``toolbus:results:{stream_id}``. The client
reads the results stream of every conversation it has a turn in flight on, from the entry that was
last before it sent the turn, so no event of that turn is missed.
"""

import asyncio
import json
from typing import Any, Dict

from ..errors import TransportError
from ..options import RedisOptions
from . import Deliver


class RedisTransport:
    def __init__(self, url: str, deliver: Deliver, options: RedisOptions = RedisOptions(), block_ms: int = 500):
        try:
            import redis.asyncio  # noqa: F401
        except ImportError as e:  # pragma: no cover - depends on the installation
            raise TransportError("the Redis transport needs the 'redis' package "
                                 "(pip install 'toolbus-client[redis]', or Debian's python3-redis)") from e
        self._url = url
        self._deliver = deliver
        self._calls = options.calls_stream
        self._template = options.results_key
        self._block_ms = block_ms
        self._redis: Any = None
        self._readers: "Dict[str, asyncio.Future[None]]" = {}
        self._cursors: Dict[str, Any] = {}
        self._users: Dict[str, int] = {}

    async def start(self) -> None:
        import redis.asyncio as aioredis
        self._redis = aioredis.from_url(self._url, decode_responses=False)
        try:
            await self._redis.ping()
        except Exception as e:  # noqa: BLE001 - any connection failure
            raise TransportError(f"cannot reach Redis at {self._url}: {e}") from e

    async def close(self) -> None:
        for t in list(self._readers.values()):
            t.cancel()
        for t in list(self._readers.values()):
            try:
                await t
            except BaseException:  # noqa: BLE001
                pass
        self._readers.clear()
        if self._redis is not None:
            await self._redis.close()
            await self._redis.connection_pool.disconnect()

    async def send_turn(self, event: Dict[str, Any]) -> None:
        await self._follow(event["stream_id"])
        await self._add(event)

    async def send_control(self, event: Dict[str, Any]) -> None:
        await self._add(event)

    async def request(self, event: Dict[str, Any]) -> None:
        await self._follow(event["stream_id"])
        await self._add(event)

    def release(self, stream_id: str) -> None:
        """The client has nothing more in flight on this conversation: stop reading its results."""
        n = self._users.get(stream_id, 0) - 1
        if n > 0:
            self._users[stream_id] = n
            return
        self._users.pop(stream_id, None)
        self._cursors.pop(stream_id, None)
        task = self._readers.pop(stream_id, None)
        if task is not None:
            task.cancel()

    async def _add(self, event: Dict[str, Any]) -> None:
        body = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        try:
            await self._redis.xadd(self._calls, {"event": body})
        except Exception as e:  # noqa: BLE001
            raise TransportError(f"XADD to {self._calls} failed: {e}") from e

    async def _follow(self, stream_id: str) -> None:
        self._users[stream_id] = self._users.get(stream_id, 0) + 1
        if stream_id in self._readers:
            return
        key = self._template.replace("{stream_id}", stream_id)
        last = await self._redis.xrevrange(key, "+", "-", count=1)
        if stream_id in self._readers:
            # another turn of this stream began following it meanwhile: its reader serves both (a second
            # one would replace it and read on, uncancelled, after close)
            return
        self._cursors[stream_id] = last[0][0] if last else b"0-0"
        self._readers[stream_id] = asyncio.ensure_future(self._read(stream_id, key))

    async def _read(self, stream_id: str, key: str) -> None:
        delay = 0.05
        while True:
            try:
                reply = await self._redis.xread({key: self._cursors[stream_id]}, count=100, block=self._block_ms)
                delay = 0.05
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - Redis restarting; keep the cursor and try again
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)
                continue
            for _, entries in reply or []:
                for entry_id, fields in entries:
                    self._cursors[stream_id] = entry_id
                    raw = fields.get(b"event")
                    if raw is None:
                        continue
                    try:
                        self._deliver(json.loads(raw))
                    except ValueError:
                        continue
