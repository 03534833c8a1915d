"""A refused call's tool_result carries its code and retry hint (docs/examples/events)."""
import json
import os
import unittest

from toolbus.events import ToolResult, parse_event

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "examples", "events")


def load(name):
    with open(os.path.join(EXAMPLES, name), encoding="utf-8") as f:
        return json.load(f)


class LimitResultsTest(unittest.TestCase):

    def test_rate_limited_result_has_its_retry_hint(self):
        event = parse_event(load("tool_result.rate_limited.json"))
        self.assertIsInstance(event, ToolResult)
        self.assertTrue(event.is_error)
        self.assertEqual(event.error_code, "RATE_LIMITED")
        self.assertEqual(event.retry_after_ms, 1500)

    def test_other_results_have_none(self):
        self.assertIsNone(parse_event(load("tool_result.limit_exceeded.json")).retry_after_ms)
        self.assertIsNone(parse_event(load("tool_result.json")).retry_after_ms)


if __name__ == "__main__":
    unittest.main()
