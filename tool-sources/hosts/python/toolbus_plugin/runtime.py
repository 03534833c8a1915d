"""The toolbus stdio protocol (docs/plugins.md §3) for Python hosts and plugins: NDJSON on stdin and
stdout, calls run concurrently as asyncio tasks, cancel, and progress/send/ask while a call runs."""

import asyncio
import contextvars
import itertools
import json
import logging
import os
import sys
import threading
from typing import IO, Any, Awaitable, Callable, Dict, List, Optional, Union

log = logging.getLogger("toolbus.plugin")

MAX_LINE_BYTES = 16 * 1024 * 1024
STOP_GRACE_S = 1.0
# lines read ahead of the loop; the reader thread waits when the loop is this far behind
MAX_QUEUED_LINES = 256

#: A JSON object as the protocol carries it.
JsonObject = Dict[str, Any]

current_call: "contextvars.ContextVar[Optional[Call]]" = contextvars.ContextVar("toolbus_current_call", default=None)


class PluginError(Exception):
    """Raised by a handler to answer its call with an error message."""


class Call:
    """One execute_tool request while it runs."""

    def __init__(self, runtime: "Runtime", request_id: Any, tool_name: str, arguments: JsonObject,
                 context: JsonObject):
        self.runtime = runtime
        self.id = request_id
        self.tool_name = tool_name
        self.arguments = arguments
        self.context = context
        self.task: "Optional[asyncio.Task[None]]" = None
        self.cancel_reason: Optional[str] = None
        self.done = False

    @property
    def cancelled(self) -> bool:
        """Whether the host asked to stop this call."""
        return self.cancel_reason is not None

    async def send(self, content: List[JsonObject]) -> bool:
        """Sends a chat message now (a send_message event); True when the host accepted it."""
        reply = await self.runtime.request("send", {"id": self.id, "content": content})
        return bool(reply.get("ok"))

    async def send_text(self, text: str) -> bool:
        """Sends a text message now."""
        return await self.send([{"type": "text", "text": str(text)}])

    async def ask(self, message: str, schema: Optional[JsonObject] = None,
                  timeout_ms: Optional[int] = None) -> JsonObject:
        """Asks the user; answers {"action": accept|decline|cancel|expired, "content": …} or {"ok": False, …}."""
        params: JsonObject = {"id": self.id, "message": str(message)}
        if schema is not None:
            params["schema"] = schema
        if timeout_ms is not None:
            params["timeoutMs"] = int(timeout_ms)
        return await self.runtime.request("ask", params)

    def progress(self, progress: float, total: Optional[float] = None, message: Optional[str] = None) -> None:
        """Reports progress (no reply)."""
        params: JsonObject = {"id": self.id, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = str(message)
        self.runtime.write({"method": "progress", "params": params})


Activate = Callable[[JsonObject], Awaitable[List[JsonObject]]]
Execute = Callable[[Call], Awaitable[JsonObject]]
Deactivate = Callable[[], Awaitable[None]]
#: ``configure(config or None, version)``: the application's configuration of the plugin changed.
Configure = Callable[[Optional[JsonObject], str], Awaitable[None]]


class Runtime:
    """Reads requests, runs them, writes answers. ``execute`` returns the answer without its id."""

    def __init__(self, activate: Activate, execute: Execute, deactivate: Optional[Deactivate] = None,
                 output: Optional[IO[bytes]] = None, configure: Optional[Configure] = None):
        self._activate = activate
        self._execute = execute
        self._deactivate = deactivate
        # async (config or None, version) -> None: the application's configuration changed
        self._configure = configure
        self._out = output or sys.stdout.buffer
        if output is None:
            # a plugin's print() must not corrupt the protocol channel: it goes to stderr
            sys.stdout = sys.stderr
        self._write_lock = threading.Lock()
        self._calls: Dict[Any, Call] = {}
        self._pending: "Dict[Any, asyncio.Future[JsonObject]]" = {}
        self._rids = itertools.count(1)
        self._loop: Optional[asyncio.AbstractEventLoop] = None

    def write(self, message: JsonObject) -> None:
        """Writes one line (thread-safe)."""
        line = json.dumps(message, ensure_ascii=False, default=str, separators=(",", ":")) + "\n"
        with self._write_lock:
            self._out.write(line.encode("utf-8"))
            self._out.flush()

    async def request(self, method: str, params: JsonObject) -> JsonObject:
        """Sends a plugin→host request carrying a fresh rid and waits for its reply."""
        rid = f"r{next(self._rids)}"
        future: "asyncio.Future[JsonObject]" = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        try:
            self.write({"method": method, "params": dict(params, rid=rid)})
            return await future
        finally:
            self._pending.pop(rid, None)

    def run(self) -> None:
        """Serves until stdin ends or deactivate arrives, then exits the process."""
        code = 0
        try:
            asyncio.run(self._serve())
        except BaseException:  # noqa: BLE001 - logged, then the exit code says it
            log.exception("the plugin loop failed")
            code = 1
        finally:
            logging.shutdown()
            sys.stderr.flush()
            # the stdin reader thread may sit in a blocking read: leave without joining it
            os._exit(code)

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        lines: "asyncio.Queue[Optional[str]]" = asyncio.Queue(MAX_QUEUED_LINES)
        threading.Thread(target=self._read, args=(lines,), daemon=True, name="stdin").start()
        try:
            while True:
                raw = await lines.get()
                if raw is None:
                    break
                if not raw.strip():
                    continue
                try:
                    message = json.loads(raw)
                except ValueError as e:
                    log.warning("ignoring a line that is not JSON: %s", e)
                    continue
                if not isinstance(message, dict):
                    log.warning("ignoring a line that is not a JSON object")
                    continue
                if await self._dispatch(message) is False:
                    break
        finally:
            # calls in flight get a short while to answer, then they are cancelled
            tasks = [c.task for c in self._calls.values() if c.task is not None]
            if tasks:
                _, late = await asyncio.wait(tasks, timeout=STOP_GRACE_S)
                for call in self._calls.values():
                    if call.task in late and call.cancel_reason is None:
                        call.cancel_reason = "shutdown"
                for task in late:
                    task.cancel("shutdown")
                if late:
                    await asyncio.wait(late, timeout=STOP_GRACE_S)
            if self._deactivate is not None:
                try:
                    await self._deactivate()
                except Exception:  # noqa: BLE001 - a failing unload must not hide the exit
                    log.exception("deactivate failed")

    def _read(self, lines: "asyncio.Queue[Optional[str]]") -> None:
        stdin = sys.stdin.buffer
        while True:
            raw = stdin.readline(MAX_LINE_BYTES)
            if not raw:
                break
            if not raw.endswith(b"\n") and len(raw) >= MAX_LINE_BYTES:
                log.warning("ignoring a line longer than %d bytes", MAX_LINE_BYTES)
                while raw and not raw.endswith(b"\n"):
                    raw = stdin.readline(MAX_LINE_BYTES)
                continue
            self._hand_over(lines, raw.decode("utf-8", "replace"))
        self._hand_over(lines, None)

    def _hand_over(self, lines: "asyncio.Queue[Optional[str]]", item: Optional[str]) -> None:
        loop = self._loop
        if loop is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(lines.put(item), loop).result()
        except Exception:  # noqa: BLE001 - the loop is gone: the process is exiting
            pass

    async def _dispatch(self, message: JsonObject) -> Optional[bool]:
        method = message.get("method")
        params = message.get("params") or {}
        request_id = message.get("id")
        if method == "activate":
            try:
                tools = await self._activate(params)
                self.write({"id": request_id, "tools": tools})
            except Exception as e:  # noqa: BLE001 - activation failures are answers
                log.exception("activation failed")
                self.write({"id": request_id, "error": f"activation failed: {e}"})
        elif method == "execute_tool":
            self._start_call(request_id, params)
        elif method == "cancel":
            call = self._calls.get(params.get("id"))
            if call is not None and not call.done:
                call.cancel_reason = str(params.get("reason") or "cancelled")
                if call.task is not None:
                    # the handler's CancelledError carries the reason as its message (args[0])
                    call.task.cancel(call.cancel_reason)
        elif method == "configure":
            if self._configure is not None:
                try:
                    await self._configure(params.get("config"), str(params.get("version") or ""))
                except Exception:  # noqa: BLE001 - a failing update must not stop the plugin
                    log.exception("configure failed")
        elif method == "reply":
            future = self._pending.get(params.get("rid"))
            if future is not None and not future.done():
                future.set_result(params)
        elif method == "deactivate":
            return False
        elif request_id is not None:
            self.write({"id": request_id, "error": f"unknown method: {method}"})
        return None

    def _start_call(self, request_id: Any, params: JsonObject) -> None:
        raw = params.get("input")
        try:
            arguments = json.loads(raw) if isinstance(raw, str) and raw.strip() else (raw or {})
        except ValueError as e:
            self.write({"id": request_id, "error": f"input is not JSON: {e}"})
            return
        if not isinstance(arguments, dict):
            self.write({"id": request_id, "error": "input must be a JSON object"})
            return
        call = Call(self, request_id, str(params.get("toolName") or ""), arguments, params.get("context") or {})
        self._calls[request_id] = call
        call.task = asyncio.get_running_loop().create_task(self._run_call(call))

    async def _run_call(self, call: Call) -> None:
        current_call.set(call)
        try:
            answer = await self._execute(call)
        except asyncio.CancelledError:
            answer = {"error": f"cancelled: {call.cancel_reason or 'host stopped'}"}
        except PluginError as e:
            answer = {"error": str(e)}
        except Exception as e:  # noqa: BLE001 - a failing handler is an error result
            log.exception("tool %s failed", call.tool_name)
            answer = {"error": str(e) or type(e).__name__}
        finally:
            call.done = True
            self._calls.pop(call.id, None)
        self.write(dict(answer or {}, id=call.id))


def setup_logging(name: str) -> logging.Logger:
    """Logs to stderr, one line per record (stdout is the protocol channel)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    return logging.getLogger(name)
