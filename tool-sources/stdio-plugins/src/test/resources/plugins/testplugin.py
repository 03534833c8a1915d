#!/usr/bin/env python3
"""A stdio plugin that misbehaves on request, for the host's tests.

Environment: CONCURRENT=1 runs each call on its own thread (answers carry the request id);
ACTIVATE=error|hang|crash|badtools makes activation fail in that way."""

import json
import os
import subprocess
import sys
import threading
import time

lock = threading.Lock()
state = {"active": 0, "max": 0}
barrier = threading.Barrier(2, timeout=10)
children = []
waits = {}      # request id -> Event set by a cancel
cancels = []    # every cancel message received
replies = []    # every reply message received

TOOLS = [
    {"name": "echo", "description": "Echo text",
     "parameters": [{"name": "text", "type": "string", "description": "text", "required": True}]},
    {"name": "sleep", "description": "Sleep, then answer", "timeoutMs": 1500,
     "input_schema": {"type": "object", "properties": {"ms": {"type": "integer"}}, "required": ["ms"]}},
    {"name": "crash", "description": "Exit in the middle of the call",
     "inputSchema": {"type": "object", "properties": {"code": {"type": "integer"}}}},
    {"name": "noise", "description": "Print a non-JSON line, then answer"},
    {"name": "non_object", "description": "Answer with a JSON array"},
    {"name": "big", "description": "Answer with a long line",
     "inputSchema": {"type": "object", "properties": {"bytes": {"type": "integer"}}, "required": ["bytes"]}},
    {"name": "pid", "description": "Answer the process id"},
    {"name": "spawn", "description": "Start a child process that sleeps, answer its pid"},
    {"name": "inflight", "description": "Count calls running at once",
     "inputSchema": {"type": "object", "properties": {"ms": {"type": "integer"}}}},
    {"name": "rendezvous", "description": "Answer once two calls are running at once"},
    {"name": "stderr", "description": "Write to stderr", "parameters": [{"name": "text", "type": "string"}]},
    {"name": "fail", "description": "Answer an error"},
    {"name": "value", "description": "Answer a JSON value with content items"},
    {"name": "no_id", "description": "Answer without the id"},
    {"name": "ignore_deactivate", "description": "Stop reading stdin"},
    {"name": "env", "description": "Answer the environment as a JSON object"},
    {"name": "wait", "description": "Wait until cancelled or ms passed (concurrent mode reads cancels)",
     "inputSchema": {"type": "object", "properties": {"ms": {"type": "integer"}}, "required": ["ms"]}},
    {"name": "cancels", "description": "Answer the cancel messages received so far as JSON"},
    {"name": "context", "description": "Answer the call's context as JSON", "risk": "high"},
    {"name": "late_send", "description": "Answer, then send and progress for the finished call", "risk": "medium"},
    {"name": "replies", "description": "Answer the reply messages received so far as JSON"},
    {"name": "flood", "description": "Write many progress messages, then answer",
     "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}},
    {"name": "bad_risk", "description": "Declares a risk that does not exist", "risk": "extreme"},
    {"name": "spam", "description": "Write stderr lines as fast as possible for a while, then answer",
     "inputSchema": {"type": "object", "properties": {"ms": {"type": "integer"}, "width": {"type": "integer"}}}},
]


def write(obj):
    with lock:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()


def answer(request, **fields):
    if "id" in request:
        fields["id"] = request["id"]
    write(fields)


def run(request):
    params = request.get("params") or {}
    name = params.get("toolName")
    args = json.loads(params.get("input") or "{}")
    if name == "echo":
        answer(request, result=args.get("text", ""))
    elif name == "sleep":
        time.sleep(args["ms"] / 1000.0)
        answer(request, result="slept %d" % args["ms"])
    elif name == "crash":
        sys.stdout.flush()
        os._exit(args.get("code", 3))
    elif name == "noise":
        with lock:
            sys.stdout.write("this is not json\n\n")
            sys.stdout.flush()
        answer(request, result="after noise")
    elif name == "non_object":
        with lock:
            sys.stdout.write("[1, 2, 3]\n")
            sys.stdout.flush()
    elif name == "big":
        answer(request, result="x" * args["bytes"])
    elif name == "pid":
        answer(request, result=str(os.getpid()))
    elif name == "spawn":
        child = subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        children.append(child)
        answer(request, result=str(child.pid))
    elif name == "inflight":
        with lock:
            state["active"] += 1
            state["max"] = max(state["max"], state["active"])
        time.sleep(args.get("ms", 100) / 1000.0)
        with lock:
            state["active"] -= 1
        answer(request, result=str(state["max"]))
    elif name == "rendezvous":
        try:
            barrier.wait()
            answer(request, result="met")
        except threading.BrokenBarrierError:
            answer(request, error="alone")
    elif name == "stderr":
        print(args.get("text", ""), file=sys.stderr, flush=True)
        answer(request, result="logged")
    elif name == "fail":
        answer(request, error="it went wrong")
    elif name == "value":
        answer(request, result={"success": True, "content": "a value",
                                "content_items": [{"type": "image", "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
                                                   "mime_type": "image/png"}]})
    elif name == "no_id":
        write({"result": "anonymous"})
    elif name == "ignore_deactivate":
        answer(request, result="ignoring")
        time.sleep(3600)
    elif name == "wait":
        ev = threading.Event()
        waits[request["id"]] = ev
        hit = ev.wait(args["ms"] / 1000.0)
        waits.pop(request["id"], None)
        answer(request, result="cancelled" if hit else "waited")
    elif name == "cancels":
        answer(request, result=json.dumps(cancels))
    elif name == "context":
        answer(request, result=json.dumps(params.get("context")))
    elif name == "late_send":
        answer(request, result="done")
        write({"method": "send", "params": {"id": request["id"], "rid": "late-1", "content": "too late"}})
        write({"method": "ask", "params": {"id": request["id"], "rid": 77, "message": "too late?"}})
        write({"method": "progress", "params": {"id": request["id"], "progress": 1}})
    elif name == "replies":
        answer(request, result=json.dumps(replies))
    elif name == "flood":
        for i in range(args["n"]):
            write({"method": "progress", "params": {"id": request["id"], "progress": i, "total": args["n"]}})
        answer(request, result="flooded")
    elif name == "env":
        answer(request, result=json.dumps(dict(os.environ)))
    elif name == "spam":
        end = time.monotonic() + args.get("ms", 1000) / 1000.0
        line = "spam " + "x" * args.get("width", 100)
        n = 0
        while time.monotonic() < end:
            for _ in range(100):
                sys.stderr.write(line + "\n")
            n += 100
        sys.stderr.flush()
        answer(request, result=str(n))
    else:
        answer(request, error="unknown tool: %s" % name)


def main():
    concurrent = os.environ.get("CONCURRENT") == "1"
    activate = os.environ.get("ACTIVATE", "")
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        method = request.get("method")
        if method == "activate":
            if activate == "error":
                answer(request, error="not today")
            elif activate == "hang":
                time.sleep(3600)
            elif activate == "crash":
                os._exit(5)
            elif activate == "badtools":
                answer(request, tools="nope")
            else:
                answer(request, tools=TOOLS)
        elif method == "execute_tool":
            if concurrent:
                threading.Thread(target=run, args=(request,), daemon=True).start()
            else:
                run(request)
        elif method == "cancel":
            params = request.get("params") or {}
            cancels.append(params)
            ev = waits.get(params.get("id"))
            if ev is not None:
                ev.set()
        elif method == "reply":
            replies.append(request.get("params") or {})
        elif method == "deactivate":
            for c in children:
                pass  # children are deliberately left running: the host must kill them
            return


if __name__ == "__main__":
    main()
