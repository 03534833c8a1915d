"""list_tools with the conversation text through the Python client, against a real ``toolbus serve``
with ``dispatch`` on and a local chat-completions server (the standard library's http.server): the
text reaches the model and the answer is narrowed to the group it chose."""

import json
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from support import TOKEN, Server, require_jar, write_config
from toolbus import Client


class _Model(BaseHTTPRequestHandler):
    seen = []

    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Model.seen.append(body)
        answer = {"choices": [{"message": {"role": "assistant", "content": '{"groups": ["art"]}'}}]}
        data = json.dumps(answer).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


class DispatchTest(unittest.IsolatedAsyncioTestCase):
    @classmethod
    def setUpClass(cls):
        require_jar(cls)
        cls.model = ThreadingHTTPServer(("127.0.0.1", 0), _Model)
        threading.Thread(target=cls.model.serve_forever, daemon=True).start()
        config = write_config(cls, "groups:\n"
                              "  - {name: math, description: Arithmetic, tools: [add, count]}\n"
                              "  - {name: art, description: Drawing pictures, tools: [draw]}\n"
                              "dispatch:\n  enabled: true\n  model: {baseUrl: \"http://127.0.0.1:%d/v1\", name: tiny}\n"
                              % cls.model.server_address[1], prefix="toolbus-py-dispatch-")
        cls.server = Server("--config", config).start()
        cls.url = "http://127.0.0.1:%d" % cls.server.port

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.model.shutdown()
        cls.model.server_close()

    async def test_list_tools_with_text_is_narrowed_to_the_chosen_group(self):
        async with Client(self.url, token=TOKEN) as tb:
            full = [t["function"]["name"] for t in await tb.list_tools("py:dispatch")]
            self.assertIn("add", full)
            self.assertIn("draw", full)
            self.assertEqual([], _Model.seen)
            narrowed = await tb.list_tools("py:dispatch", text="draw me a cat")
            self.assertEqual(["draw"], [t["function"]["name"] for t in narrowed])
            self.assertEqual("draw me a cat", _Model.seen[-1]["messages"][1]["content"])


if __name__ == "__main__":
    unittest.main()
