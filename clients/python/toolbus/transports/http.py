"""HTTP and Server-Sent Events to the gateway, with the standard library only.

Each turn is one ``POST /v1/turns`` with ``Accept: text/event-stream``: its events arrive as they
happen (the live control events included) and the stream ends after ``turn_completed``. Control
events go to ``POST /v1/control``.
"""

import asyncio
import json
import ssl
from urllib.parse import urlsplit

from ..errors import AuthenticationError, BadEventError, ForbiddenError, RejectedError, ToolbusError, TransportError

_MAX_LINE = 64 * 1024 * 1024


class HttpTransport:
    def __init__(self, url, token, deliver):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise ValueError("not an http(s) URL: %r" % url)
        self._tls = parts.scheme == "https"
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port or (443 if self._tls else 80)
        self._base = parts.path.rstrip("/")
        self._token = token
        self._deliver = deliver
        self._tasks = set()

    async def start(self):
        pass

    async def close(self):
        for t in list(self._tasks):
            t.cancel()
        for t in list(self._tasks):
            try:
                await t
            except BaseException:  # noqa: BLE001 - cancelled or failed streams are over either way
                pass

    async def send_turn(self, event):
        """Starts the turn's SSE stream; returns once the server accepted it (status 200)."""
        accepted = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(self._stream(event, accepted))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        await accepted

    async def send_control(self, event):
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

    async def request(self, event):
        """A one-shot exchange (``list_tools``): the answer's events are delivered."""
        status, _, body = await self._exchange("/v1/turns", event, sse=False)
        if status >= 300:
            _raise_for(status, body)
        for e in json.loads(body):
            self._deliver(e)

    async def _stream(self, event, accepted):
        reader = writer = None
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
                                       else TransportError("HTTP request to toolbus failed: %s" % e))
            else:
                self._deliver({"type": "_transport_lost", "stream_id": event.get("stream_id"),
                               "turn_id": event.get("turn_id"), "reason": str(e)})
        finally:
            if not accepted.done():  # cancelled (the client closed) before the server answered
                accepted.set_exception(TransportError("the client was closed"))
            if writer is not None:
                writer.close()

    async def _exchange(self, path, event, sse):
        reader, writer, status, headers = await self._open(path, event, sse)
        try:
            body = await _read_body(reader, headers)
            return status, headers, body
        finally:
            writer.close()

    async def _open(self, path, event, sse):
        body = json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        ctx = ssl.create_default_context() if self._tls else None
        reader, writer = await asyncio.open_connection(self._host, self._port, ssl=ctx, limit=_MAX_LINE)
        try:
            lines = ["POST %s%s HTTP/1.1" % (self._base, path), "Host: %s:%d" % (self._host, self._port),
                     "Content-Type: application/json", "Content-Length: %d" % len(body), "Connection: close",
                     "Accept: %s" % ("text/event-stream" if sse else "application/json")]
            if self._token:
                lines.append("Authorization: Bearer %s" % self._token)
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
            await writer.drain()
            status_line = await reader.readline()
            if not status_line:
                raise TransportError("toolbus closed the connection without an answer")
            try:
                status = int(status_line.split()[1])
            except (IndexError, ValueError):
                raise TransportError("not an HTTP answer: %r" % status_line[:80])
            headers = {}
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


async def _chunks(reader, headers):
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


async def _read_body(reader, headers):
    out = bytearray()
    async for chunk in _chunks(reader, headers):
        out += chunk
        if len(out) > _MAX_LINE:
            raise TransportError("answer above %d bytes" % _MAX_LINE)
    return out.decode("utf-8", "replace")


async def _sse_data(reader, headers):
    """The ``data`` of each SSE event (multi-line data joined with newlines)."""
    buf = b""
    data = []
    async for chunk in _chunks(reader, headers):
        buf += chunk
        if len(buf) > _MAX_LINE:
            raise TransportError("an SSE line above %d bytes" % _MAX_LINE)
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


def _error_for(status, body):
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
    return TransportError("HTTP %d: %s" % (status, message))


def _raise_for(status, body):
    raise _error_for(status, body)
