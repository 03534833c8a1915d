from maibot_sdk import MaiBotPlugin, Tool


def headers(trace):
    return None if trace is None else trace.headers()


class TracedPlugin(MaiBotPlugin):
    @Tool("trace_async", description="the trace context of the running call, from an async handler")
    async def trace_async(self, **kwargs):
        return {"trace": headers(self.ctx.trace), "span_id": self.ctx.trace.span_id if self.ctx.trace else None}

    @Tool("trace_sync", description="the trace context of the running call, from a plain function")
    def trace_sync(self, **kwargs):
        return {"trace": headers(self.ctx.trace)}


def create_plugin():
    return TracedPlugin()
