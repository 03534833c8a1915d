"""Programmatic callers in the providers' raw shapes, through the client against a real ``toolbus serve``
(the stdio sidecar): the ``caller`` of an Anthropic ``tool_use`` block and of an OpenAI Responses
``function_call`` item reaches toolbus, which refuses a programmatic call of a tool that allows only
direct calls (every sample tool) and runs a direct one."""

import unittest

from support import Server, require_jar

from toolbus import Client, StdioOptions

ANTHROPIC_FROM_CODE = {"type": "tool_use", "id": "toolu_01", "name": "echo", "input": {"text": "hi"},
                       "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_01"}}
ANTHROPIC_DIRECT = {"type": "tool_use", "id": "toolu_02", "name": "echo", "input": {"text": "direct"},
                    "caller": {"type": "direct"}}
OPENAI_FROM_CODE = {"type": "function_call", "call_id": "call_03", "name": "echo", "arguments": "{\"text\":\"x\"}",
                    "caller": {"type": "program", "caller_id": "prog_1"}}
TOOLBUS_FROM_CODE = {"tool_call_id": "c4", "name": "echo", "arguments": {"text": "y"},
                     "caller": {"type": "programmatic", "id": "run_1"}}


class CallersTest(unittest.IsolatedAsyncioTestCase):
    def setUp(self):
        require_jar(self)

    async def test_the_providers_caller_shapes_reach_toolbus(self):
        command = Server("--bus", "stdio", gateway=False).command()
        async with Client("stdio:", transport=StdioOptions(command)) as tb:
            turn = await tb.run_turn("py:callers", [ANTHROPIC_FROM_CODE, ANTHROPIC_DIRECT, OPENAI_FROM_CODE,
                                                    TOOLBUS_FROM_CODE], timeout=60)
        refused = "Tool echo cannot be called by a programmatic caller; it allows: direct."
        for call_id in ("toolu_01", "call_03", "c4"):
            result = turn.result(call_id)
            self.assertTrue(result.is_error, call_id)
            self.assertEqual(result.error_code, "NOT_ALLOWED", call_id)
            self.assertEqual(result.content, refused)
        self.assertFalse(turn.result("toolu_02").is_error)
        self.assertEqual(turn.result("toolu_02").content, "direct")


if __name__ == "__main__":
    unittest.main()
