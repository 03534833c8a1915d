"""docs/llm-messages.md: the events of its turn, mapped by the client, are exactly the JSON the page shows
for each provider (and that JSON passes the provider shape checks)."""

import json
import os
import re
import unittest

import provider_shapes

from toolbus.events import parse_event
from toolbus.turn import Turn

PAGE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "llm-messages.md")


def json_blocks():
    """The page's ```json blocks by the heading above them, each a list of its lines parsed."""
    with open(PAGE, encoding="utf-8") as f:
        text = f.read()
    blocks = {}
    for m in re.finditer(r"^## (.+?)$(.*?)(?=^## |\Z)", text, re.S | re.M):
        code = re.search(r"```json\n(.*?)```", m.group(2), re.S)
        if code:
            blocks[m.group(1).strip()] = [json.loads(line) for line in code.group(1).splitlines() if line.strip()]
    return blocks


class LlmMessagesPageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.blocks = json_blocks()
        events = cls.blocks["The turn used below"]
        cls.turn = Turn("qq:group:1", "msg-42", [parse_event(e) for e in events])
        cls.ids = [e["tool_call_id"] for e in events if e["type"] == "tool_result"]

    def test_the_page_has_the_turn_and_the_four_providers(self):
        self.assertEqual(set(self.blocks), {"The turn used below", "OpenAI Chat Completions", "OpenAI Responses API",
                                            "Anthropic Messages", "Gemini"})
        self.assertEqual(self.ids, ["call_1", "call_2"])
        self.assertEqual(len(self.turn.media), 1)

    def test_openai_chat_completions(self):
        self.assertEqual(self.turn.to_openai(), self.blocks["OpenAI Chat Completions"])
        provider_shapes.openai_chat(self.blocks["OpenAI Chat Completions"], self.ids)

    def test_openai_responses(self):
        self.assertEqual(self.turn.to_openai_responses(), self.blocks["OpenAI Responses API"])
        provider_shapes.openai_responses(self.blocks["OpenAI Responses API"], self.ids)

    def test_anthropic_messages(self):
        self.assertEqual(self.turn.to_anthropic(), self.blocks["Anthropic Messages"])
        provider_shapes.anthropic(self.blocks["Anthropic Messages"], self.ids)

    def test_gemini(self):
        self.assertEqual(self.turn.to_gemini(), self.blocks["Gemini"])
        provider_shapes.gemini(self.blocks["Gemini"], self.ids)


if __name__ == "__main__":
    unittest.main()
