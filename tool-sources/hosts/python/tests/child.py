"""A plugin process for tests: spawns it and exchanges NDJSON lines with it."""

import json
import os
import queue
import subprocess
import threading

WAIT_S = 15


class Child:
    """A running plugin host; ``read`` waits (bounded) for its next stdout message."""

    def __init__(self, args, cwd=None, env=None):
        self.proc = subprocess.Popen(args, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=dict(os.environ, **(env or {})))
        self.lines = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()

    def _pump(self, stream, target):
        for raw in stream:
            target.put(raw.decode("utf-8"))
        target.put(None)

    def _drain(self):
        for raw in self.proc.stderr:
            self.stderr.append(raw.decode("utf-8", "replace"))

    def write(self, message):
        data = message if isinstance(message, str) else json.dumps(message, ensure_ascii=False)
        self.proc.stdin.write((data + "\n").encode("utf-8"))
        self.proc.stdin.flush()

    def read(self):
        line = self.lines.get(timeout=WAIT_S)
        if line is None:
            raise EOFError("the plugin closed stdout; stderr: " + "".join(self.stderr))
        return json.loads(line)

    def request(self, message):
        self.write(message)
        return self.read()

    def activate(self, plugin_id="test"):
        return self.request({"id": 1, "method": "activate", "params": {"pluginId": plugin_id}})

    def call(self, request_id, tool, arguments, context=None):
        params = {"toolName": tool, "input": json.dumps(arguments, ensure_ascii=False)}
        if context:
            params["context"] = context
        self.write({"id": request_id, "method": "execute_tool", "params": params})

    def close(self):
        try:
            self.write({"id": 999, "method": "deactivate"})
            self.proc.stdin.close()
        except (BrokenPipeError, ValueError, OSError):
            pass
        try:
            return self.proc.wait(timeout=WAIT_S)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.stdout.close()
            self.proc.stderr.close()
