"""Checks of the request shapes the providers document, for the messages a Turn produces.

Each function raises AssertionError naming the first rule a list of messages breaks. The rules are
the providers' documented request formats:
- OpenAI Chat Completions: a ``tool`` message has ``tool_call_id`` and string ``content``; a ``user``
  message's content parts are ``text`` ({text}) or ``image_url`` ({image_url: {url}}) or
  ``input_audio`` ({input_audio: {data, format wav|mp3}}); tool messages answering one assistant
  message come right after it, before any user message.
- OpenAI Responses: ``function_call_output`` items have ``call_id`` and string ``output``; user
  messages hold ``input_text`` / ``input_image`` (``image_url`` a URL or data URL) parts.
- Anthropic Messages: the answer to ``tool_use`` blocks is one ``user`` message whose content starts
  with ``tool_result`` blocks ({tool_use_id, content, is_error?}); images are
  ``{type: image, source: {type: base64, media_type, data}}`` with a JPEG/PNG/GIF/WebP media type.
- Gemini: ``contents`` items have ``role`` user|model and ``parts``; a ``functionResponse`` part has
  ``name`` and an object ``response``; inline media is ``inlineData`` {mimeType, data}.
"""

import base64

_ANTHROPIC_IMAGE_TYPES = {"image/jpeg", "image/png", "image/gif", "image/webp"}


def _b64(s):
    base64.b64decode(s, validate=True)


def openai_chat(messages, tool_call_ids):
    seen_user = False
    answered = []
    for i, m in enumerate(messages):
        assert set(m) <= {"role", "content", "tool_call_id", "name"}, "message %d has unknown keys %s" % (i, set(m))
        if m["role"] == "tool":
            assert not seen_user, "tool message %d comes after a user message: the tool-call sequence breaks" % i
            assert isinstance(m["tool_call_id"], str) and m["tool_call_id"], "tool message %d lacks tool_call_id" % i
            assert isinstance(m["content"], str), "tool message %d content must be a string" % i
            answered.append(m["tool_call_id"])
        elif m["role"] == "user":
            seen_user = True
            assert isinstance(m["content"], list) and m["content"], "user message %d needs content parts" % i
            for p in m["content"]:
                if p["type"] == "text":
                    assert set(p) == {"type", "text"} and isinstance(p["text"], str)
                elif p["type"] == "image_url":
                    assert set(p) == {"type", "image_url"} and set(p["image_url"]) <= {"url", "detail"}
                    url = p["image_url"]["url"]
                    assert url.startswith("data:image/") and ";base64," in url, "image_url must be a data URL"
                    _b64(url.split(",", 1)[1])
                elif p["type"] == "input_audio":
                    assert p["input_audio"]["format"] in ("wav", "mp3")
                    _b64(p["input_audio"]["data"])
                else:
                    raise AssertionError("unknown content part type %r" % p["type"])
        else:
            raise AssertionError("role %r is not expected after tool calls" % m["role"])
    assert answered == list(tool_call_ids), "every tool call answered once, in order: %s vs %s" % (
        answered, list(tool_call_ids))


def openai_responses(items, tool_call_ids):
    outputs = []
    for i, it in enumerate(items):
        if it.get("type") == "function_call_output":
            assert isinstance(it["call_id"], str) and isinstance(it["output"], str)
            outputs.append(it["call_id"])
        elif it.get("type") == "message":
            assert it["role"] == "user"
            for p in it["content"]:
                assert p["type"] in ("input_text", "input_image"), p["type"]
                if p["type"] == "input_image":
                    assert p["image_url"].startswith("data:image/")
        else:
            raise AssertionError("item %d has unknown type %r" % (i, it.get("type")))
    assert outputs == list(tool_call_ids)


def anthropic(messages, tool_call_ids):
    assert len(messages) == 1, "the answer to tool_use blocks is one user message"
    m = messages[0]
    assert m["role"] == "user" and isinstance(m["content"], list)
    blocks = m["content"]
    n = len(tool_call_ids)
    for i, b in enumerate(blocks[:n]):
        assert b["type"] == "tool_result", "block %d: tool_result blocks must come first" % i
        assert set(b) <= {"type", "tool_use_id", "content", "is_error"}
        assert isinstance(b["content"], (str, list))
    assert [b["tool_use_id"] for b in blocks[:n]] == list(tool_call_ids)
    for b in blocks[n:]:
        assert b["type"] in ("text", "image"), b["type"]
        if b["type"] == "image":
            src = b["source"]
            assert src["type"] == "base64" and src["media_type"] in _ANTHROPIC_IMAGE_TYPES
            _b64(src["data"])


def gemini(contents, tool_call_ids):
    names = []
    for c in contents:
        assert c["role"] in ("user", "model") and isinstance(c["parts"], list) and c["parts"]
        for p in c["parts"]:
            assert len(p) == 1, "a part holds exactly one kind of data"
            if "functionResponse" in p:
                fr = p["functionResponse"]
                assert isinstance(fr["name"], str) and isinstance(fr["response"], dict)
                names.append(fr.get("id"))
            elif "inlineData" in p:
                assert set(p["inlineData"]) == {"mimeType", "data"}
                _b64(p["inlineData"]["data"])
            else:
                assert "text" in p
    assert names == list(tool_call_ids)
