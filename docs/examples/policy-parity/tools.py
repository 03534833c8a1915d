#!/usr/bin/env python3
"""A stdio plugin for docs/policy.md's parity examples.

Declares the tools named on its command line (a trailing "?" marks an
optional one) and answers each call with "<plugin>:<tool> ran", where the
plugin is the folder it runs in. Standard library only."""

import json
import os
import sys

PLUGIN = os.path.basename(os.getcwd())
TOOLS = []
for arg in sys.argv[1:]:
    name = arg.rstrip("?")
    TOOLS.append({
        "name": name,
        "description": "The %s tool of plugin %s." % (name, PLUGIN),
        "inputSchema": {"type": "object", "properties": {}},
        "optional": arg.endswith("?"),
    })


def answer(req, **fields):
    fields["id"] = req["id"]
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    req = json.loads(line)
    method = req.get("method")
    if method == "activate":
        answer(req, tools=TOOLS)
    elif method == "deactivate":
        break
    elif method == "execute_tool":
        answer(req, result="%s:%s ran" % (PLUGIN, req["params"]["toolName"]))
