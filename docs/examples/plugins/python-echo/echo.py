#!/usr/bin/env python3
"""Example toolbus stdio plugin: reads one JSON request per line on stdin, writes one JSON answer per
line on stdout. Logs go to stderr. Standard library only."""

import json
import sys

# A 1x1 transparent PNG, to show a media result.
PIXEL_PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA"
             "60e6kgAAAABJRU5ErkJggg==")

TOOLS = [
    {   # the "parameters" list form
        "name": "py_echo",
        "description": "Echo the given text back.",
        "parameters": [
            {"name": "text", "type": "string", "description": "Text to echo", "required": True},
        ],
    },
    {   # a JSON Schema under "input_schema"
        "name": "py_add",
        "description": "Add two numbers; answers a JSON object.",
        "input_schema": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    },
    {   # a JSON Schema under "inputSchema"; the answer carries an image
        "name": "py_pixel",
        "description": "Return a one-pixel PNG image.",
        "inputSchema": {"type": "object", "properties": {}},
    },
]


def answer(request, **fields):
    if "id" in request:
        fields["id"] = request["id"]  # echo the id: the host matches answers by it
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def execute(name, args):
    if name == "py_echo":
        return {"result": str(args.get("text", ""))}
    if name == "py_add":
        return {"result": {"sum": args["a"] + args["b"]}}
    if name == "py_pixel":
        return {"result": "here is a pixel",
                "content_items": [{"type": "image", "data": PIXEL_PNG, "mime_type": "image/png"}]}
    return {"error": "unknown tool: " + name}


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        method = request.get("method")
        params = request.get("params") or {}
        if method == "activate":
            print("python-echo activated as " + params.get("pluginId", "?"), file=sys.stderr)
            answer(request, tools=TOOLS)
        elif method == "execute_tool":
            try:
                args = json.loads(params.get("input") or "{}")  # the arguments arrive as a JSON string
                answer(request, **execute(params.get("toolName"), args))
            except Exception as e:  # a failure the model should read
                answer(request, error="%s: %s" % (type(e).__name__, e))
        elif method == "deactivate":
            answer(request)
            return
        else:
            answer(request, error="unknown method: %s" % method)


if __name__ == "__main__":
    main()
