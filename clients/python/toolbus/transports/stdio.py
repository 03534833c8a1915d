"""The stdio sidecar: toolbus runs as a child process (``toolbus serve --bus stdio``) and the client
writes one event per line to its stdin and reads one per line from its stdout."""

import asyncio
import json
from typing import Any, Dict, Optional

from ..errors import TransportError
from ..options import StdioOptions
from . import Deliver

_LIMIT = 64 * 1024 * 1024


class StdioTransport:
    def __init__(self, options: StdioOptions, deliver: Deliver):
        self._command = list(options.command)
        self._env = dict(options.env) if options.env is not None else None
        self._deliver = deliver
        self._proc: Optional[asyncio.subprocess.Process] = None
        self._reader: "Optional[asyncio.Future[None]]" = None
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *self._command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL, limit=_LIMIT, env=self._env)
        except OSError as e:
            raise TransportError(f"cannot start {self._command[0]}: {e}") from e
        self._reader = asyncio.ensure_future(self._read_loop())

    async def close(self) -> None:
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

    async def send_turn(self, event: Dict[str, Any]) -> None:
        await self._write(event)

    async def send_control(self, event: Dict[str, Any]) -> None:
        await self._write(event)

    async def request(self, event: Dict[str, Any]) -> None:
        await self._write(event)

    def release(self, stream_id: str) -> None:
        """The sidecar's stdout carries every conversation: nothing to stop following."""

    async def _write(self, event: Dict[str, Any]) -> None:
        line = json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n"
        async with self._lock:
            proc = self._proc
            if proc is None or proc.returncode is not None or proc.stdin is None:
                raise TransportError("the toolbus sidecar is not running")
            try:
                proc.stdin.write(line.encode("utf-8"))
                await proc.stdin.drain()
            except (BrokenPipeError, ConnectionResetError) as e:
                raise TransportError("the toolbus sidecar closed its stdin") from e

    async def _read_loop(self) -> None:
        stdout = self._proc.stdout if self._proc is not None else None
        if stdout is None:
            return
        while True:
            line = await stdout.readline()
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
