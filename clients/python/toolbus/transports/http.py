"""HTTP and Server-Sent Events to the gateway, with the standard library only.

Each turn is one ``POST /v1/turns`` with ``Accept: text/event-stream``: its events arrive as they
happen (the live control events included) and the stream ends after ``turn_completed``. Control
events go to ``POST /v1/control``. A request waits at most ``HttpOptions.answer_timeout`` for the
status and headers.
"""

import asyncio
import json
import ssl
from typing import Any, AsyncIterator, Dict, List, NoReturn, Optional, Set, Tuple
from urllib.parse import urlsplit

from ..errors import AuthenticationError, BadEventError, ForbiddenError, RejectedError, ToolbusError, TransportError
from ..options import HttpOptions
from . import Deliver

_MAX_LINE = 64 * 1024 * 1024

_Opened = Tuple[asyncio.StreamReader, asyncio.StreamWriter, int, Dict[str, str]]


class HttpTransport:
    def __init__(self, url: str, token: Optional[str], deliver: Deliver, options: HttpOptions = HttpOptions()):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise ValueError(f"not an http(s) URL: {url!r}")
        self._tls = parts.scheme == "https"
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port or (443 if self._tls else 80)
        self._base = parts.path.rstrip("/")
        self._token = token
        self._deliver = deliver
        self._answer_timeout = options.answer_timeout
        self._tasks: "Set[asyncio.Future[None]]" = set()

    async def start(self) -> None:
        pass

    def release(self, stream_id: str) -> None:
        """Each turn has its own request: nothing to stop following."""

    async def close(self) -> None:
        for t in list(self._tasks):
            t.cancel()
        for t in list(self._tasks):
            try:
                await t
            except BaseException:  # noqa: BLE001 - cancelled or failed streams are over either way
                pass

    async def send_turn(self, event: Dict[str, Any]) -> None:
        """Starts the turn's SSE stream; returns once the server accepted it (status 200)."""
        accepted: "asyncio.Future[None]" = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(self._stream(event, accepted))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        await accepted

    async def send_control(self, event: Dict[str, Any]) -> None:
        status, _, body = await self._exchange("/v1/control", event, sse=False)
        if status >= 300:
            _raise_for(status, body)
        if body.strip():
            try:
                answer = json.loads(body)
            except ValueError:
                return
            for e in answer if isinstance(answer, list) else [answer]:
                if isinstance(e, dict) and e.get("type") == "error":
                    self._deliver(e)

    async def request(self, event: Dict[str, Any]) -> None:
        """A one-shot exchange (``list_tools``): the answer's events are delivered."""
        status, _, body = await self._exchange("/v1/turns", event, sse=False)
        if status >= 300:
            _raise_for(status, body)
        for e in json.loads(body):
            self._deliver(e)

    async def _stream(self, event: Dict[str, Any], accepted: "asyncio.Future[None]") -> None:
        writer: Optional[asyncio.StreamWriter] = None
        try:
            reader, writer, status, headers = await self._open("/v1/turns", event, sse=True)
            if status != 200:
                body = await _read_body(reader, headers)
                err = _error_for(status, body)
                if not accepted.done():
                    accepted.set_exception(err)
                return
            if not accepted.done():
                accepted.set_result(None)
            async for data in _sse_data(reader, headers):
                try:
                    e = json.loads(data)
                except ValueError:
                    continue
                self._deliver(e)
                if isinstance(e, dict) and e.get("type") in ("turn_completed", "tools", "skills"):
                    return
            # the stream ended cleanly but early (a proxy or the server closed it): the turn's events are gone
            self._deliver({"type": "_transport_lost", "stream_id": event.get("stream_id"),
                           "turn_id": event.get("turn_id"), "reason": "the event stream ended before turn_completed"})
        except Exception as e:  # noqa: BLE001 - whatever ends the stream ends the turn, never silently
            if not accepted.done():
                accepted.set_exception(e if isinstance(e, ToolbusError)
                                       else TransportError(f"HTTP request to toolbus failed: {e}"))
            else:
                self._deliver({"type": "_transport_lost", "stream_id": event.get("stream_id"),
                               "turn_id": event.get("turn_id"), "reason": str(e)})
        finally:
            if not accepted.done():  # cancelled (the client closed) before the server answered
                accepted.set_exception(TransportError("the client was closed"))
            if writer is not None:
                writer.close()

    async def _exchange(self, path: str, event: Dict[str, Any], sse: bool) -> Tuple[int, Dict[str, str], str]:
        reader, writer, status, headers = await self._open(path, event, sse)
        try:
            body = await _read_body(reader, headers)
            return status, headers, body
        finally:
            writer.close()

    async def _open(self, path: str, event: Dict[str, Any], sse: bool) -> _Opened:
        """Sends the request; returns once the status and headers arrived, within the answer timeout."""
        try:
            return await asyncio.wait_for(self._send_request(path, event, sse), self._answer_timeout)
        except asyncio.TimeoutError:
            raise TransportError(f"toolbus sent no answer to POST {path} within {self._answer_timeout}s") from None

    async def _send_request(self, path: str, event: Dict[str, Any], sse: bool) -> _Opened:
        body = json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        ctx = ssl.create_default_context() if self._tls else None
        reader, writer = await asyncio.open_connection(self._host, self._port, ssl=ctx, limit=_MAX_LINE)
        try:
            accept = "text/event-stream" if sse else "application/json"
            lines = [f"POST {self._base}{path} HTTP/1.1", f"Host: {self._host}:{self._port}",
                     "Content-Type: application/json", f"Content-Length: {len(body)}", "Connection: close",
                     f"Accept: {accept}"]
            if self._token:
                lines.append(f"Authorization: Bearer {self._token}")
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
            await writer.drain()
            status_line = await reader.readline()
            if not status_line:
                raise TransportError("toolbus closed the connection without an answer")
            try:
                status = int(status_line.split()[1])
            except (IndexError, ValueError):
                raise TransportError(f"not an HTTP answer: {status_line[:80]!r}")
            headers: Dict[str, str] = {}
            while True:
                line = await reader.readline()
                if line in (b"\r\n", b"\n", b""):
                    break
                name, _, value = line.decode("latin-1").partition(":")
                headers[name.strip().lower()] = value.strip()
            return reader, writer, status, headers
        except BaseException:
            writer.close()  # a failed or cancelled exchange releases its connection
            raise


async def _chunks(reader: asyncio.StreamReader, headers: Dict[str, str]) -> AsyncIterator[bytes]:
    """The body's bytes as they arrive, chunked transfer coding undone."""
    if headers.get("transfer-encoding", "").lower() == "chunked":
        while True:
            size_line = await reader.readline()
            if not size_line:
                return
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                await reader.readline()
                return
            data = await reader.readexactly(size)
            await reader.readexactly(2)
            yield data
    elif "content-length" in headers:
        n = int(headers["content-length"])
        if n:
            yield await reader.readexactly(n)
    else:
        while True:
            data = await reader.read(65536)
            if not data:
                return
            yield data


async def _read_body(reader: asyncio.StreamReader, headers: Dict[str, str]) -> str:
    out = bytearray()
    async for chunk in _chunks(reader, headers):
        out += chunk
        if len(out) > _MAX_LINE:
            raise TransportError(f"answer above {_MAX_LINE} bytes")
    return out.decode("utf-8", "replace")


async def _sse_data(reader: asyncio.StreamReader, headers: Dict[str, str]) -> AsyncIterator[str]:
    """The ``data`` of each SSE event (multi-line data joined with newlines)."""
    buf = b""
    data: List[str] = []
    async for chunk in _chunks(reader, headers):
        buf += chunk
        if len(buf) > _MAX_LINE:
            raise TransportError(f"an SSE line above {_MAX_LINE} bytes")
        while True:
            i = buf.find(b"\n")
            if i < 0:
                break
            line, buf = buf[:i].rstrip(b"\r").decode("utf-8"), buf[i + 1:]
            if line == "":
                if data:
                    yield "\n".join(data)
                    data = []
            elif line.startswith("data:"):
                data.append(line[5:][1:] if line[5:].startswith(" ") else line[5:])
    if data:
        yield "\n".join(data)


def _error_for(status: int, body: str) -> ToolbusError:
    message = body
    try:
        e = json.loads(body)
        if isinstance(e, dict):
            message = e.get("message") or body
    except ValueError:
        pass
    if status == 401:
        return AuthenticationError(message)
    if status == 403:
        return ForbiddenError(message)
    if status in (400, 413):
        return BadEventError(message)
    if status == 503:
        return RejectedError(message)
    return TransportError(f"HTTP {status}: {message}")


def _raise_for(status: int, body: str) -> NoReturn:
    raise _error_for(status, body)
