# MaiBot's `greet` tool (from its Tool documentation, unchanged) and a legacy @Action.
from maibot_sdk import Action, MaiBotPlugin, Tool
from maibot_sdk.types import ActivationType, ToolParameterInfo, ToolParamType


class GreetPlugin(MaiBotPlugin):
    @Tool("greet", description="向用户打招呼",
          parameters=[
              ToolParameterInfo(name="stream_id", param_type=ToolParamType.STRING,
                              description="当前聊天流 ID", required=True),
          ])
    async def handle_greet(self, stream_id: str, **kwargs):
        await self.ctx.send.text("你好！", stream_id)
        return {"success": True, "message": "已回复"}

    @Action("wave", description="向用户挥手", activation_type=ActivationType.KEYWORD,
            activation_keywords=["再见"], action_parameters={"target": "挥手对象"})
    async def wave(self, target: str = "", **kwargs):
        return True, f"向{target or '大家'}挥手"


def create_plugin():
    return GreetPlugin()
