from maibot_sdk import MaiBotPlugin, Tool
from maibot_sdk.types import ToolParameterInfo, ToolParamType


class EchoPlugin(MaiBotPlugin):
    @Tool("echo", description="Echo the text back.",
          parameters=[ToolParameterInfo("text", ToolParamType.STRING, "the text")])
    async def echo(self, text: str, **kwargs):
        return text


def create_plugin():
    return EchoPlugin()
