"""The MaiBot host as a real child process speaking toolbus's stdio protocol."""

import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
HOSTS = os.path.dirname(os.path.dirname(HERE))
ROOT = os.path.dirname(os.path.dirname(HOSTS))
sys.path.insert(0, os.path.join(HOSTS, "python", "tests"))

from child import Child  # noqa: E402

HOST = os.path.join(HOSTS, "maibot", "host.py")
VECTORS = os.path.join(ROOT, "executor", "src", "test", "resources", "maibot-vectors", "llm_schema_vectors.out")
EXAMPLES = os.path.join(ROOT, "docs", "examples", "frameworks")


def compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def llm_vectors():
    """name -> the function definition MaiBot's host sent to the model (or None when it raised)."""
    out = {}
    name = None
    with open(VECTORS, encoding="utf-8") as f:
        for line in f:
            if line.startswith("==="):
                parts = line.split()
                name = parts[1]
                if "RAISES" in line:
                    out[name] = None
            elif line.strip() and name:
                out[name] = json.loads(line)["function"]
    return out


def start(folder):
    return Child([sys.executable, "-u", HOST, folder])


class ListingTest(unittest.TestCase):
    def test_descriptions_and_schemas_equal_maibots_byte_for_byte(self):
        child = start(os.path.join(HERE, "plugins", "vectors"))
        try:
            tools = {t["name"]: t for t in child.activate()["tools"]}
        finally:
            child.close()
        vectors = llm_vectors()
        self.assertEqual(set(vectors), {"arr_no_items", "legacy_dict", "noparams", "typed", "web_search", "ws"})
        for name, function in vectors.items():
            if function is None:
                self.assertNotIn(name, tools, "MaiBot refuses an array without items")
                continue
            self.assertEqual(tools[name]["description"], function["description"], name)
            self.assertEqual(compact(tools[name]["inputSchema"]), compact(function["parameters"]), name)
        self.assertEqual(tools["web_search"]["timeoutMs"], 5000)
        self.assertEqual(tools["web_search"]["visibility"], "visible")
        self.assertIn("数组参数必须提供 items_schema", "".join(child.stderr))

    def test_legacy_action_is_declared_with_optional_string_parameters(self):
        child = start(os.path.join(HERE, "plugins", "vectors"))
        try:
            greet = {t["name"]: t for t in child.activate()["tools"]}["greet"]
        finally:
            child.close()
        self.assertEqual(greet["description"], "向用户打招呼")
        self.assertEqual(compact(greet["inputSchema"]),
                         '{"type":"object","properties":{"target":{"type":"string","description":"打招呼对象"},'
                         '"style":{"type":"string","description":"兼容旧 Action 参数"}},"required":[]}')

    def test_seed_search_plugin_lists_its_two_tools(self):
        child = start(os.path.join(EXAMPLES, "maibot-search"))
        try:
            tools = child.activate()["tools"]
        finally:
            child.close()
        self.assertEqual([t["name"] for t in tools], ["search_web", "get_weather"])
        self.assertEqual(tools[0]["description"], "搜索互联网获取信息")
        self.assertEqual(compact(tools[0]["inputSchema"]),
                         '{"type":"object","properties":{"query":{"type":"string","description":"搜索关键词"},'
                         '"limit":{"type":"integer","description":"返回结果数量上限","default":5}},'
                         '"required":["query"]}')
        self.assertIn("搜索插件已加载", "".join(child.stderr))


class CallsTest(unittest.TestCase):
    def setUp(self):
        self.child = start(os.path.join(HERE, "plugins", "calls"))
        self.assertEqual(len(self.child.activate()["tools"]), 5)

    def tearDown(self):
        self.assertEqual(self.child.close(), 0)

    def answer(self, request_id, tool, arguments, context=None):
        self.child.call(request_id, tool, arguments, context)
        return self.child.read()

    def test_every_return_shape(self):
        expected = {
            "dict": {"result": {"content": "c", "extra": 1}},
            "str": {"result": "text"},
            "none": {},
            "int": {"result": 42},
            "list": {"result": ["a", "b"]},
            "ok_tuple": {"result": [True, "done"]},
            "fail_tuple": {"result": [False, "reason"]},
            "fail_dict": {"result": {"success": False, "error": "boom"}},
            "raise": {"error": "division by zero"},
        }
        for n, (kind, want) in enumerate(expected.items(), start=10):
            got = self.answer(n, "shape", {"kind": kind})
            self.assertEqual(got, dict(want, id=n), kind)

    def test_media_items_pass_through(self):
        got = self.answer(2, "shape", {"kind": "media"})
        self.assertEqual(got["result"]["content"], "图片")
        self.assertEqual(got["result"]["content_items"][0]["mime_type"], "image/png")

    def test_sync_handler_gets_the_callers_context(self):
        got = self.answer(3, "sync_tool", {}, {"streamId": "s1", "userId": "u7", "message": {"text": "hi"}})
        self.assertEqual(got, {"id": 3, "result": "sync s1 u7 {'text': 'hi'}"})

    def test_handler_without_kwargs_gets_only_its_arguments(self):
        self.assertEqual(self.answer(4, "strict", {"q": "x"}, {"streamId": "s1"}), {"id": 4, "result": "x"})

    def test_ctx_send_becomes_send_requests_answered_by_reply(self):
        self.child.call(5, "say", {"text": "你好！"}, {"streamId": "s1"})
        send = self.child.read()
        self.assertEqual(send["method"], "send")
        self.assertEqual(send["params"]["id"], 5)
        self.assertEqual(send["params"]["content"], [{"type": "text", "text": "你好！"}])
        self.child.write({"method": "reply", "params": {"rid": send["params"]["rid"], "ok": True}})
        image = self.child.read()
        self.assertEqual(image["params"]["content"][0]["type"], "image")
        self.child.write({"method": "reply", "params": {"rid": image["params"]["rid"], "ok": False, "error": "x"}})
        self.assertEqual(self.child.read(), {"id": 5, "result": {"sent": True, "image": False}})

    def test_cancel_reaches_the_task(self):
        with tempfile.TemporaryDirectory() as tmp:
            marker = os.path.join(tmp, "cancelled")
            self.child.call(6, "slow", {"marker": marker})
            self.child.call(7, "shape", {"kind": "str"})
            self.assertEqual(self.child.read(), {"id": 7, "result": "text"})  # concurrent: 7 overtakes 6
            self.child.write({"method": "cancel", "params": {"id": 6, "toolCallId": "c6", "reason": "timeout"}})
            self.assertEqual(self.child.read(), {"id": 6, "error": "cancelled: timeout"})
            with open(marker) as f:
                self.assertEqual(f.read(), "cancelled")

    def test_garbage_and_unknown_tools_get_clear_answers(self):
        self.child.write("this is not json")
        self.child.write("[1, 2]")
        self.assertEqual(self.answer(8, "nope", {}), {"id": 8, "error": "未找到插件工具：nope"})
        self.child.write({"id": 9, "method": "execute_tool", "params": {"toolName": "shape", "input": "{bad"}})
        self.assertTrue(self.child.read()["error"].startswith("input is not JSON"))


class TraceTest(unittest.TestCase):
    """``self.ctx.trace``: the running call's W3C trace context, in async and plain handlers."""

    TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    def setUp(self):
        self.child = start(os.path.join(HERE, "plugins", "traced"))
        self.assertEqual(len(self.child.activate()["tools"]), 2)

    def tearDown(self):
        self.assertEqual(self.child.close(), 0)

    def test_handlers_see_their_calls_trace_context(self):
        context = {"streamId": "s1", "traceparent": self.TRACEPARENT, "tracestate": "core=1"}
        self.child.call(2, "trace_async", {}, context)
        self.assertEqual(self.child.read(), {"id": 2, "result": {
            "trace": {"traceparent": self.TRACEPARENT, "tracestate": "core=1"}, "span_id": "00f067aa0ba902b7"}})
        self.child.call(3, "trace_sync", {}, dict(context, tracestate=None))
        self.assertEqual(self.child.read(), {"id": 3, "result": {"trace": {"traceparent": self.TRACEPARENT}}})

    def test_a_call_without_trace_context_has_none(self):
        self.child.call(2, "trace_async", {}, {"streamId": "s1"})
        self.assertEqual(self.child.read(), {"id": 2, "result": {"trace": None, "span_id": None}})
        self.child.call(3, "trace_sync", {}, {"traceparent": "garbage"})
        self.assertEqual(self.child.read(), {"id": 3, "result": {"trace": None}})


class BadPluginTest(unittest.TestCase):
    def check(self, folder, fragment):
        child = start(os.path.join(HERE, "plugins", folder))
        try:
            answer = child.activate()
        finally:
            child.close()
        self.assertIn(fragment, answer["error"])

    def test_syntax_error(self):
        self.check("broken", "activation failed: invalid syntax")

    def test_no_create_plugin(self):
        self.check("empty", "defines no create_plugin()")

    def test_create_plugin_returning_none(self):
        self.check("returns-none", "returned NoneType, not a MaiBotPlugin")


class SeedExamplesTest(unittest.TestCase):
    def test_dict_form_runs(self):
        child = start(os.path.join(EXAMPLES, "maibot-dict"))
        try:
            tool = child.activate()["tools"][0]
            self.assertEqual(compact(tool["inputSchema"]),
                             '{"type":"object","properties":{"query":{"type":"string","description":"搜索关键词"},'
                             '"limit":{"type":"integer","description":"返回结果数量上限","default":5}},"required":[]}')
            child.call(2, "search", {"query": "toolbus", "limit": 2})
            self.assertEqual(child.read(), {"id": 2, "result": {"results": ["toolbus #1", "toolbus #2"]}})
        finally:
            child.close()

    def test_greet_sends_hello_and_the_action_answers(self):
        child = start(os.path.join(EXAMPLES, "maibot-greet"))
        try:
            names = [t["name"] for t in child.activate()["tools"]]
            self.assertEqual(names, ["greet", "wave"])
            child.call(2, "greet", {}, {"streamId": "chat-1"})
            send = child.read()
            self.assertEqual(send["params"]["content"], [{"type": "text", "text": "你好！"}])
            child.write({"method": "reply", "params": {"rid": send["params"]["rid"], "ok": True}})
            self.assertEqual(child.read(), {"id": 2, "result": {"success": True, "message": "已回复"}})
            child.call(3, "wave", {"target": "Mai"}, {"streamId": "chat-1"})
            self.assertEqual(child.read(), {"id": 3, "result": [True, "向Mai挥手"]})
        finally:
            child.close()


if __name__ == "__main__":
    unittest.main()
