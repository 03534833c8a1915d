"""The stdio sidecar: toolbus runs as a child process (``toolbus serve --bus stdio``) and the client
writes one event per line to its stdin and reads one per line from its stdout."""

import asyncio
import json

from ..errors import TransportError

_LIMIT = 64 * 1024 * 1024


class StdioTransport:
    def __init__(self, command, deliver, env=None):
        if not command:
            raise ValueError("the stdio transport needs the command that starts toolbus, "
                             "e.g. ['./toolbus', 'serve', '--bus', 'stdio']")
        self._command = list(command)
        self._env = env
        self._deliver = deliver
        self._proc = None
        self._reader = None
        self._lock = asyncio.Lock()

    async def start(self):
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *self._command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL, limit=_LIMIT, env=self._env)
        except OSError as e:
            raise TransportError("cannot start %s: %s" % (self._command[0], e)) from e
        self._reader = asyncio.ensure_future(self._read_loop())

    async def close(self):
        if self._proc is None:
            return
        if self._proc.stdin and not self._proc.stdin.is_closing():
            self._proc.stdin.close()
        try:
            await asyncio.wait_for(self._proc.wait(), 30)
        except asyncio.TimeoutError:
            self._proc.kill()
            await self._proc.wait()
        if self._reader is not None:
            try:
                await self._reader
            except BaseException:  # noqa: BLE001
                pass

    async def send_turn(self, event):
        await self._write(event)

    async def send_control(self, event):
        await self._write(event)

    async def request(self, event):
        await self._write(event)

    async def _write(self, event):
        line = json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n"
        async with self._lock:
            if self._proc is None or self._proc.returncode is not None:
                raise TransportError("the toolbus sidecar is not running")
            try:
                self._proc.stdin.write(line.encode("utf-8"))
                await self._proc.stdin.drain()
            except (BrokenPipeError, ConnectionResetError) as e:
                raise TransportError("the toolbus sidecar closed its stdin") from e

    async def _read_loop(self):
        while True:
            line = await self._proc.stdout.readline()
            if not line:
                self._deliver({"type": "_transport_lost", "reason": "the toolbus sidecar exited"})
                return
            line = line.strip()
            if not line:
                continue
            try:
                self._deliver(json.loads(line))
            except ValueError:
                continue
