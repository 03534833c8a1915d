"""Runs one assistant turn on toolbus and prints the messages for the next OpenAI request.

    TOOLBUS_URL=http://127.0.0.1:8765 TOOLBUS_TOKEN=dev-secret python3 examples/quickstart.py
"""

import asyncio
import json
import os

from toolbus import Client

# the assistant message of an OpenAI Chat Completions answer, as the API returns it
assistant = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{\"a\": 2, \"b\": 40}"}},
        {"id": "call_2", "type": "function", "function": {"name": "draw", "arguments": "{\"label\": \"a cat\"}"}},
    ],
}


async def main():
    messages = [{"role": "user", "content": "add 2 and 40, then draw a cat"}, assistant]
    async with Client(os.environ.get("TOOLBUS_URL", "http://127.0.0.1:8765"),
                      token=os.environ.get("TOOLBUS_TOKEN"),
                      on_send_message=lambda m: print("to the chat:", m.text),
                      on_progress=lambda p: print(f"progress: {p.progress}/{p.total}")) as tb:
        turn = await tb.run_turn("quickstart:py", assistant["tool_calls"], context={"user_id": "42"})
    messages += turn.to_openai()  # tool messages in call order, then a user message with the image
    for m in messages[2:]:
        print(json.dumps(m, ensure_ascii=False)[:240])


if __name__ == "__main__":
    asyncio.run(main())
