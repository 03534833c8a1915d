#!/usr/bin/env python3
"""Example toolbus stdio plugin: reads one JSON request per line on stdin, writes one JSON answer per
line on stdout. Logs go to stderr. Standard library only.

A quick call runs inline. A long one (py_countdown) runs on a worker thread, so that the main loop
keeps reading stdin while it runs: that is how the plugin sees a "cancel" for it, and the "reply" to
a "send" or "ask" it made."""

import itertools
import json
import sys
import threading

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
    {   # talks to the chat while it runs: progress, a message, a question; stops on cancel
        "name": "py_countdown",
        "description": "Count down, reporting progress; optionally ask for a city first.",
        "risk": "low",
        "inputSchema": {
            "type": "object",
            "properties": {"seconds": {"type": "integer", "minimum": 0},
                           "ask": {"type": "boolean"}},
            "required": ["seconds"],
        },
    },
]

write_lock = threading.Lock()
replies = {}            # rid -> [Event, reply params]
cancelled = {}          # execute_tool id -> Event
rids = itertools.count(1)
LONG_TOOLS = {"py_countdown"}  # run on a thread; the others answer at once


def write(message):
    with write_lock:  # whole lines only, also from the worker thread
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def answer(request, **fields):
    if "id" in request:
        fields["id"] = request["id"]  # echo the id: the host matches answers by it
    write(fields)


def host_request(call_id, method, **params):
    """send or ask: write the message, wait for the host's reply with the same rid."""
    rid = "r%d" % next(rids)
    waiter = [threading.Event(), None]
    replies[rid] = waiter
    write({"method": method, "params": dict(params, id=call_id, rid=rid)})
    waiter[0].wait()
    return replies.pop(rid)[1]


def countdown(call_id, args, stop):
    city = None
    if args.get("ask"):
        reply = host_request(call_id, "ask", message="Which city?", timeoutMs=60000,
                             schema={"type": "object", "properties": {"city": {"type": "string"}}})
        if not reply.get("ok") or reply.get("action") != "accept":
            return {"result": "no city given (%s)" % (reply.get("action") or reply.get("error"))}
        city = reply["content"]["city"]
    total = args["seconds"]
    for i in range(total):
        write({"method": "progress", "params": {"id": call_id, "progress": i, "total": total,
                                                 "message": "%d left" % (total - i)}})
        if stop.wait(1.0):  # a cancel for this call ends the wait at once
            return {"result": "cancelled"}
    host_request(call_id, "send", content=[{"type": "text", "text": "Countdown over!"}])
    return {"result": "counted %d%s" % (total, " for " + city if city else "")}


def execute(name, args, call_id=None, stop=None):
    if name == "py_echo":
        return {"result": str(args.get("text", ""))}
    if name == "py_add":
        return {"result": {"sum": args["a"] + args["b"]}}
    if name == "py_pixel":
        return {"result": "here is a pixel",
                "content_items": [{"type": "image", "data": PIXEL_PNG, "mime_type": "image/png"}]}
    if name == "py_countdown":
        return countdown(call_id, args, stop)
    return {"error": "unknown tool: " + name}


def run_call(request, params):
    stop = cancelled[request["id"]] = threading.Event()
    try:
        args = json.loads(params.get("input") or "{}")  # the arguments arrive as a JSON string
        answer(request, **execute(params.get("toolName"), args, request["id"], stop))
    except Exception as e:  # a failure the model should read
        answer(request, error="%s: %s" % (type(e).__name__, e))
    finally:
        cancelled.pop(request["id"], None)


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
            if params.get("toolName") in LONG_TOOLS:
                threading.Thread(target=run_call, args=(request, params), daemon=True).start()
            else:
                run_call(request, params)
        elif method == "cancel":  # stop that call; its answer (any) is discarded
            stop = cancelled.get(params.get("id"))
            if stop is not None:
                stop.set()
        elif method == "reply":  # the host's answer to a send or an ask
            waiter = replies.get(params.get("rid"))
            if waiter is not None:
                waiter[1] = params
                waiter[0].set()
        elif method == "deactivate":
            answer(request)
            return
        else:
            answer(request, error="unknown method: %s" % method)


if __name__ == "__main__":
    main()
