"""Test support: a real ``toolbus serve`` process, and a TCP proxy that can cut connections."""

import asyncio
import os
import shutil
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
JAR = os.environ.get("TOOLBUS_JAR", os.path.join(ROOT, "server", "target", "toolbus-server.jar"))
TOKEN = "py-client-secret"


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def temp_dir(owner, prefix="toolbus-py-"):
    """A new folder in the temp folder, removed with all it holds when ``owner`` cleans up: a test
    (``addCleanup``: after tearDown) or, from setUpClass, its class (``addClassCleanup``: after
    tearDownClass, or when setUpClass fails)."""
    path = tempfile.mkdtemp(prefix=prefix)
    cleanup = owner.addClassCleanup if isinstance(owner, type) else owner.addCleanup
    cleanup(shutil.rmtree, path, ignore_errors=True)
    return path


def write_config(owner, text, prefix="toolbus-py-"):
    """A toolbus.yaml holding ``text``, in a :func:`temp_dir` of ``owner``; its path."""
    config = os.path.join(temp_dir(owner, prefix), "toolbus.yaml")
    with open(config, "w", encoding="utf-8") as f:
        f.write(text)
    return config


def require_jar(test):
    if not os.path.exists(JAR):
        raise unittest.SkipTest("build the server first: mvn -pl server -am package -DskipTests (%s)" % JAR)


class Server:
    """``toolbus serve`` with the sample tools; ``port`` is its gateway's port.

    ``start`` makes a folder in the temp folder for the port file and the server's stderr; ``stop``
    (which a failed ``start`` calls too) ends the process and removes it. ``command`` alone makes none.
    """

    def __init__(self, *args, gateway=True, env=None):
        self.args = list(args)
        self.gateway = gateway
        self.env = dict(os.environ, **(env or {}))
        self.proc = None
        self.port = None
        self._dir = None

    def command(self, *extra):
        java_opts = os.environ.get("TOOLBUS_JAVA_OPTS", "-Xmx256m").split()
        return ["java", *java_opts, "-jar", JAR, "serve", "--sample-tools", "--log-level", "warn", *self.args,
                *extra]

    def start(self):
        self._dir = tempfile.mkdtemp(prefix="toolbus-py-")
        try:
            return self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self):
        port_file = os.path.join(self._dir, "port")
        extra = ["--gateway", "127.0.0.1:0", "--port-file", port_file, "--token", TOKEN] if self.gateway else []
        with open(os.path.join(self._dir, "stderr.log"), "wb") as err:
            self.proc = subprocess.Popen(self.command(*extra), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=err, env=self.env)
        if self.gateway:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                text = _read(port_file).strip()
                if text:
                    self.port = int(text)
                    return self
                if self.proc.poll() is not None:
                    raise RuntimeError("toolbus serve exited: " + self.stderr())
                time.sleep(0.05)
            raise RuntimeError("toolbus serve did not listen within 60 s: " + self.stderr())
        return self

    def stderr(self):
        if self._dir is None:
            return ""
        return _read(os.path.join(self._dir, "stderr.log"))[-4000:]

    def stop(self):
        try:
            if self.proc and self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(30)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        finally:
            # after the process has ended: it no longer writes its stderr.log there
            if self._dir is not None:
                shutil.rmtree(self._dir, ignore_errors=True)
                self._dir = None


class CuttableProxy:
    """Forwards 127.0.0.1:<port> to a target; ``cut()`` drops every open connection, as a network would.

    ``end()`` closes them cleanly instead. While ``refuse`` is set, new connections are closed at once (the network is still down).
    """

    def __init__(self, target_port):
        self.target_port = target_port
        self.port = None
        self._server = None
        self._writers = set()
        self.connections = 0
        self.refuse = False
        self.refused = 0

    async def start(self):
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def _handle(self, reader, writer):
        if self.refuse:
            self.refused += 1
            writer.transport.abort()
            return
        self.connections += 1
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        self._writers.update((writer, up_writer))

        async def pipe(src, dst):
            try:
                while True:
                    data = await src.read(65536)
                    if not data:
                        break
                    dst.write(data)
                    await dst.drain()
            except (OSError, asyncio.CancelledError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._writers.discard(writer)
        self._writers.discard(up_writer)

    def end(self):
        """Closes every open connection cleanly (FIN, not a reset), as a proxy timing out would."""
        for w in list(self._writers):
            w.close()
        self._writers.clear()

    def cut(self):
        for w in list(self._writers):
            transport = w.transport
            if transport is not None:
                transport.abort()
        self._writers.clear()

    async def close(self):
        self.cut()
        self._server.close()
        await self._server.wait_closed()


async def eventually(predicate, timeout=10.0, interval=0.02):
    """Waits until ``predicate()`` is true (polling), or fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        await asyncio.sleep(interval)
    raise AssertionError("condition not met within %ss" % timeout)


