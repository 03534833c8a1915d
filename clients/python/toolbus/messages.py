"""How a turn's events become the next LLM request (docs/llm-messages.md).

The rule for every provider: first the tool results, one per call in call order, then the media of
those results as user content. A user message between two tool results breaks the tool-call
sequence of OpenAI and Gemini, and Anthropic wants the ``tool_result`` blocks first in the user
message that answers the tool calls.
"""

from typing import Any, Dict, List, Sequence

from .events import JsonObject, ToolResult, UserMessage


def _data_url(part: Dict[str, Any]) -> str:
    return f"data:{part.get('mime_type', 'application/octet-stream')};base64,{part.get('data', '')}"


_OPENAI_AUDIO = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}


def openai_chat(results: Sequence[ToolResult], media: Sequence[UserMessage]) -> List[JsonObject]:
    """OpenAI Chat Completions: ``role: tool`` messages, then one ``role: user`` message per media item."""
    out: List[JsonObject] = [{"role": "tool", "tool_call_id": r.tool_call_id, "content": r.content}
                             for r in results]
    for m in media:
        parts: List[JsonObject] = []
        for p in m.content:
            kind = p.get("type")
            if kind == "text":
                parts.append({"type": "text", "text": p.get("text", "")})
            elif kind == "image" and p.get("data"):
                parts.append({"type": "image_url", "image_url": {"url": _data_url(p)}})
            elif kind == "audio" and p.get("data") and p.get("mime_type") in _OPENAI_AUDIO:
                parts.append({"type": "input_audio",
                              "input_audio": {"data": p["data"], "format": _OPENAI_AUDIO[p["mime_type"]]}})
        if parts:
            out.append({"role": "user", "content": parts})
    return out


def openai_responses(results: Sequence[ToolResult], media: Sequence[UserMessage]) -> List[JsonObject]:
    """OpenAI Responses API input items: ``function_call_output`` items, then user messages."""
    out: List[JsonObject] = [{"type": "function_call_output", "call_id": r.tool_call_id, "output": r.content}
                             for r in results]
    for m in media:
        parts: List[JsonObject] = []
        for p in m.content:
            kind = p.get("type")
            if kind == "text":
                parts.append({"type": "input_text", "text": p.get("text", "")})
            elif kind == "image" and p.get("data"):
                parts.append({"type": "input_image", "image_url": _data_url(p)})
        if parts:
            out.append({"type": "message", "role": "user", "content": parts})
    return out


def anthropic(results: Sequence[ToolResult], media: Sequence[UserMessage]) -> List[JsonObject]:
    """Anthropic Messages: one user message, ``tool_result`` blocks first, then the media blocks."""
    blocks: List[JsonObject] = []
    for r in results:
        block: JsonObject = {"type": "tool_result", "tool_use_id": r.tool_call_id, "content": r.content}
        if r.is_error:
            block["is_error"] = True
        blocks.append(block)
    for m in media:
        for p in m.content:
            kind = p.get("type")
            if kind == "text":
                blocks.append({"type": "text", "text": p.get("text", "")})
            elif kind == "image" and p.get("data"):
                blocks.append({"type": "image", "source": {"type": "base64",
                                                           "media_type": p.get("mime_type", "image/png"),
                                                           "data": p["data"]}})
    return [{"role": "user", "content": blocks}] if blocks else []


def gemini(results: Sequence[ToolResult], media: Sequence[UserMessage]) -> List[JsonObject]:
    """Gemini ``contents``: one user turn of ``functionResponse`` parts, then one with the media parts."""
    out: List[JsonObject] = []
    if results:
        parts: List[JsonObject] = []
        for r in results:
            response: JsonObject = {"content": r.content}
            if r.is_error:
                response = {"error": r.content}
            parts.append({"functionResponse": {"id": r.tool_call_id, "name": r.name, "response": response}})
        out.append({"role": "user", "parts": parts})
    parts = []
    for m in media:
        for p in m.content:
            kind = p.get("type")
            if kind == "text":
                parts.append({"text": p.get("text", "")})
            elif kind in ("image", "audio") and p.get("data"):
                parts.append({"inlineData": {"mimeType": p.get("mime_type", "application/octet-stream"),
                                             "data": p["data"]}})
    if parts:
        out.append({"role": "user", "parts": parts})
    return out
