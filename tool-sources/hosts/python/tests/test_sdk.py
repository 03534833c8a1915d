"""The Python SDK's example plugin as a real child process."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(HERE))))
sys.path.insert(0, HERE)

from child import Child  # noqa: E402

EXAMPLE = os.path.join(ROOT, "docs", "examples", "sdk", "python-weather")


class PythonSdkTest(unittest.TestCase):
    def setUp(self):
        self.child = Child([sys.executable, "-u", "weather.py"], cwd=EXAMPLE,
                           env={"PYTHONPATH": os.path.join(ROOT, "tool-sources", "hosts", "python")})

    def tearDown(self):
        self.assertEqual(self.child.close(), 0)

    def test_declarations_come_from_signatures_and_docstrings(self):
        tools = {t["name"]: t for t in self.child.activate()["tools"]}
        self.assertEqual(tools["weather_now"], {
            "name": "weather_now", "description": "Current temperature of a city.",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}},
                            "required": ["city"]},
            "cacheable": True})
        self.assertEqual(tools["greet_user"]["inputSchema"],
                         {"type": "object", "properties": {"name": {"type": "string", "default": "there"}},
                          "required": []})
        self.assertTrue(tools["greet_user"]["sideEffecting"])

    def test_max_result_chars_is_declared(self):
        sys.path.insert(0, os.path.join(ROOT, "tool-sources", "hosts", "python"))
        import toolbus_plugin

        @toolbus_plugin.tool(name="dump_log", max_result_chars=4000)
        def dump_log() -> str:
            return ""

        declared = {t["name"]: t for t in toolbus_plugin.tools()}
        self.assertEqual(declared["dump_log"]["maxResultChars"], 4000)
        self.child.activate()

    def test_allowed_callers_and_output_schema_are_declared(self):
        sys.path.insert(0, os.path.join(ROOT, "tool-sources", "hosts", "python"))
        import toolbus_plugin

        schema = {"type": "object", "required": ["sum"], "properties": {"sum": {"type": "integer"}}}

        @toolbus_plugin.tool(name="sum_up", allowed_callers=["direct", "programmatic"], output_schema=schema)
        def sum_up(a: int, b: int) -> dict:
            return {"sum": a + b}

        declared = {t["name"]: t for t in toolbus_plugin.tools()}
        self.assertEqual(declared["sum_up"]["allowedCallers"], ["direct", "programmatic"])
        self.assertEqual(declared["sum_up"]["outputSchema"], schema)
        self.child.activate()

    def test_calls_errors_and_send(self):
        self.child.activate()
        self.child.call(2, "weather_now", {"city": "Oslo"})
        self.assertEqual(self.child.read(), {"id": 2, "result": {"city": "Oslo", "celsius": 4}})
        self.child.call(3, "weather_now", {"city": "Atlantis"})
        self.assertEqual(self.child.read(), {"id": 3, "error": "unknown city: Atlantis"})
        self.child.call(4, "greet_user", {"name": "Ann"})
        send = self.child.read()
        self.assertEqual(send["params"]["content"], [{"type": "text", "text": "Hello, Ann!"}])
        self.child.write({"method": "reply", "params": {"rid": send["params"]["rid"], "ok": True}})
        self.assertEqual(self.child.read(), {"id": 4, "result": "greeted"})


if __name__ == "__main__":
    unittest.main()


TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


class TraceContextTest(unittest.TestCase):
    """A call's W3C trace context reaches plugin code as ``ctx.trace`` and ``current_trace()``."""

    def setUp(self):
        self.child = Child([sys.executable, "-u", os.path.join(HERE, "plugins", "traced.py")],
                           env={"PYTHONPATH": os.path.join(ROOT, "tool-sources", "hosts", "python")})
        self.child.activate()

    def tearDown(self):
        self.assertEqual(self.child.close(), 0)

    def test_the_calls_trace_is_seen_by_the_handler_its_tasks_and_its_thread(self):
        expected = {"headers": {"traceparent": TRACEPARENT, "tracestate": "core=1"},
                    "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "span_id": "00f067aa0ba902b7", "sampled": True}
        context = {"streamId": "s", "traceparent": TRACEPARENT, "tracestate": "core=1"}
        self.child.call(2, "trace_async", {}, context)
        self.assertEqual(self.child.read(), {"id": 2, "result": {"ctx": expected, "task": expected}})
        self.child.call(3, "trace_in_thread", {}, context)
        self.assertEqual(self.child.read(), {"id": 3, "result": {"current": expected}})

    def test_a_call_without_a_valid_trace_has_none(self):
        self.child.call(2, "trace_async", {}, {"streamId": "s"})
        self.assertEqual(self.child.read(), {"id": 2, "result": {"ctx": None, "task": None}})
        self.child.call(3, "trace_in_thread", {}, {"traceparent": "00-" + "0" * 32 + "-00f067aa0ba902b7-01"})
        self.assertEqual(self.child.read(), {"id": 3, "result": {"current": None}})
        # an unsampled context without tracestate keeps its flag and sends no tracestate header
        self.child.call(4, "trace_in_thread", {}, {"traceparent": TRACEPARENT[:-2] + "00", "tracestate": "bad\u00e9"})
        self.assertEqual(self.child.read()["result"]["current"],
                         {"headers": {"traceparent": TRACEPARENT[:-2] + "00"},
                          "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "span_id": "00f067aa0ba902b7",
                          "sampled": False})


class TraceParseTest(unittest.TestCase):
    def test_only_w3c_traceparents_are_read(self):
        sys.path.insert(0, os.path.join(ROOT, "tool-sources", "hosts", "python"))
        from toolbus_plugin import Trace

        self.assertEqual(Trace.parse(TRACEPARENT, "a=1").headers(), {"traceparent": TRACEPARENT, "tracestate": "a=1"})
        for bad in (None, 42, "", TRACEPARENT.upper(), TRACEPARENT + "-x", "ff" + TRACEPARENT[2:],
                    "00-" + "0" * 32 + TRACEPARENT[35:], TRACEPARENT[:36] + "0" * 16 + "-01", TRACEPARENT[:-1]):
            self.assertIsNone(Trace.parse(bad), bad)
        # a later version may append fields after a dash
        self.assertIsNotNone(Trace.parse("01" + TRACEPARENT[2:] + "-more"))
        self.assertIsNone(Trace.parse("01" + TRACEPARENT[2:] + "more"))
        self.assertIsNone(Trace.parse(TRACEPARENT, "x" * 513).tracestate)
