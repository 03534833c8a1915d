import asyncio
import base64

from maibot_sdk import MaiBotPlugin, Tool
from maibot_sdk.types import ToolParameterInfo, ToolParamType

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4//8/AAX+Av5B4iG8AAAAAElFTkSuQmCC"


class CallsPlugin(MaiBotPlugin):
    async def on_load(self):
        self.ctx.logger.info("calls plugin loaded")

    @Tool("shape", description="returns the shape it is asked for",
          parameters=[ToolParameterInfo("kind", ToolParamType.STRING, "which shape")])
    async def shape(self, kind: str, **kwargs):
        values = {"dict": {"content": "c", "extra": 1}, "str": "  text  ", "none": None, "int": 42,
                  "list": ["a", "b"], "ok_tuple": (True, "done"), "fail_tuple": (False, "reason"),
                  "fail_dict": {"success": False, "error": "boom"},
                  "media": {"content": "图片", "content_items": [{"type": "image", "data": PNG,
                                                                  "mime_type": "image/png"}]}}
        if kind == "raise":
            raise ValueError("division by zero")
        return values[kind]

    @Tool("sync_tool", description="a plain function")
    def sync_tool(self, **kwargs):
        return f"sync {kwargs.get('stream_id')} {kwargs.get('user_id')} {kwargs.get('message')}"

    @Tool("say", description="sends a message, then answers",
          parameters=[ToolParameterInfo("text", ToolParamType.STRING, "what to say")])
    async def say(self, text: str, stream_id: str = "", **kwargs):
        sent = await self.ctx.send.text(text, stream_id)
        image = await self.ctx.send.image(base64.b64encode(b"x").decode(), stream_id)
        return {"sent": sent, "image": image}

    @Tool("slow", description="waits until cancelled",
          parameters=[ToolParameterInfo("marker", ToolParamType.STRING, "file written on cancel")])
    async def slow(self, marker: str, **kwargs):
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            with open(marker, "w") as f:
                f.write("cancelled")
            raise
        return "never"

    @Tool("strict", description="no **kwargs",
          parameters=[ToolParameterInfo("q", ToolParamType.STRING, "q")])
    async def strict(self, q: str):
        return q


def create_plugin():
    return CallsPlugin()
