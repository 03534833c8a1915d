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
