# The dict-parameter form of MaiBot's Tool documentation, as written there (class MyPlugin through
# handle_search); the import, the _do_search helper and create_plugin are what the fragment leaves out.
from maibot_sdk import MaiBotPlugin, Tool


class MyPlugin(MaiBotPlugin):
    @Tool(
        "search",
        brief_description="搜索互联网获取信息",
        parameters={
            "query": {"type": "string", "description": "搜索关键词"},
            "limit": {"type": "integer", "description": "返回结果数量上限", "default": 5},
        },
    )
    async def handle_search(self, query: str, limit: int = 5, **kwargs):
        results = await self._do_search(query, limit)
        return {"results": results}

    async def _do_search(self, query: str, limit: int) -> list:
        return [f"{query} #{i}" for i in range(1, limit + 1)]


def create_plugin():
    return MyPlugin()
