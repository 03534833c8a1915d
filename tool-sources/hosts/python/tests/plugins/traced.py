"""A plugin that reports the trace context its calls see, through ``ctx.trace`` and ``current_trace()``."""

import asyncio
from typing import Any, Dict, Optional

from toolbus_plugin import Trace, current_trace, run, tool


def described(trace: Optional[Trace]) -> Optional[Dict[str, Any]]:
    if trace is None:
        return None
    return {"headers": trace.headers(), "trace_id": trace.trace_id, "span_id": trace.span_id,
            "sampled": trace.sampled}


@tool(description="The trace context of this call, as the handler and a task it starts see it.")
async def trace_async(ctx) -> Dict[str, Any]:
    async def deeper() -> Optional[Dict[str, Any]]:
        return described(current_trace())

    return {"ctx": described(ctx.trace), "task": await asyncio.create_task(deeper())}


@tool(description="The trace context of this call, seen from a plain function (run in a thread).")
def trace_in_thread() -> Optional[Dict[str, Any]]:
    return {"current": described(current_trace())}


if __name__ == "__main__":
    run()
