"""The decorators of reference/maibot-vectors (llm_schema_vectors.out, sdk_vectors.out)."""

from maibot_sdk import Action, MaiBotPlugin, Tool
from maibot_sdk.types import ActivationType, ToolParameterInfo as P, ToolParamType as T


class VectorsPlugin(MaiBotPlugin):
    @Tool("web_search", description="查询互联网信息并返回结果摘要",
          parameters=[P("query", T.STRING, "搜索关键词", required=True),
                      P("limit", T.INTEGER, "返回结果数", required=False, default=5)],
          timeout_ms=5000, visibility="visible")
    async def search(self, query: str, limit: int = 5, **kwargs):
        return {"results": [query] * limit, "stream": kwargs.get("stream_id")}

    @Tool("typed", parameters=[
        P("ratio", T.FLOAT, "r", required=False),
        P("mode", T.STRING, "m", enum_values=["a", "b"], default="a"),
        P("tags", T.ARRAY, "tags", items_schema={"type": "string"}),
        P("opts", T.OBJECT, "o", properties={"x": {"type": "integer"}}, required_properties=["x"],
          additional_properties=False),
        P("opts2", T.OBJECT, "o2")])
    async def typed(self, **kwargs):
        return "typed"

    @Tool("noparams", description="无参工具")
    async def noparams(self, **kwargs):
        return None

    @Tool("legacy_dict", parameters={"query": {"type": "string", "description": "kw", "required": True},
                                     "n": {"type": "integer"}, "bad": "x"})
    async def legacy_dict(self, query: str, n: int = 0, **kwargs):
        return {"query": query, "n": n}

    @Tool("ws", description="  ")
    async def ws(self, **kwargs):
        return "ws"

    @Tool("arr_no_items", parameters=[P("tags", T.ARRAY, "tags")])
    async def arr_no_items(self, **kwargs):
        return "never offered"

    @Action("greet", description="向用户打招呼", activation_type=ActivationType.KEYWORD,
            activation_keywords=["你好", "hello"], action_parameters={"target": "打招呼对象", "style": ""},
            action_require=["需要时使用", " "], associated_types=["text", "emoji"], action_prompt="打招呼",
            parallel_action=True, foo="bar")
    async def greet(self, **kwargs):
        return True, f"greeted {kwargs.get('target')} ({kwargs['action_data']})"


def create_plugin():
    return VectorsPlugin()
