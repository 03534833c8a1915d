"""The maibot_sdk decorators produce what the real SDK 2.6.0 produced (sdk_vectors.out)."""

import json
import os
import sys
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
HOSTS = os.path.dirname(os.path.dirname(HERE))
ROOT = os.path.dirname(os.path.dirname(HOSTS))
sys.path.insert(0, os.path.join(HOSTS, "maibot"))
sys.path.insert(0, os.path.join(HOSTS, "python"))

from maibot_sdk import Action, Tool  # noqa: E402
from maibot_sdk.types import ActivationType, ToolParameterInfo as P, ToolParamType as T  # noqa: E402

VECTORS = os.path.join(ROOT, "executor", "src", "test", "resources", "maibot-vectors", "sdk_vectors.out")


def components():
    with open(VECTORS, encoding="utf-8") as f:
        text = f.read()
    out = {}
    for block in text.split("=== COMPONENT ")[1:]:
        name, rest = block.split("\n", 1)
        body = rest[:rest.index("\n}\n") + 2]
        out[name.strip()] = json.loads(body)
    return out


def dump(function, handler_name):
    info = function.__maibot_component_info__
    meta = info.dump()
    meta["handler_name"] = handler_name
    return {"name": info.name, "type": "TOOL", "metadata": meta}


def decorated():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        made = {
            "web_search": Tool("web_search", description="查询互联网信息并返回结果摘要",
                               parameters=[P("query", T.STRING, "搜索关键词", required=True),
                                           P("limit", T.INTEGER, "返回结果数", required=False, default=5)],
                               timeout_ms=5000, visibility="visible"),
            "t2": Tool("t2", brief_description="brief", description="desc", detailed_description="extra notes"),
            "t3": Tool("t3"),
            "t4": Tool("t4", parameters={"query": {"type": "string", "description": "kw", "required": True},
                                         "n": {"type": "integer"}, "bad": "x"}, detailed_description="Use wisely"),
            "t5": Tool("t5", parameters=[
                P("ratio", T.FLOAT, "r", required=False), P("mode", T.STRING, "", enum_values=["a", "b"], default="a"),
                P("tags", T.ARRAY, "tags", items_schema={"type": "string"}), P("tags2", T.ARRAY, "no items"),
                P("opts", T.OBJECT, "o", properties={"x": {"type": "integer"}}, required_properties=["x"],
                  additional_properties=False),
                P("opts2", T.OBJECT, "o2"), P("flag", T.BOOLEAN, "f", default=False)]),
            "t6": Tool("t6", parameters={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}),
            "t7": Tool("t7", description="  "),
            "greet": Action("greet", description="向用户打招呼", activation_type=ActivationType.KEYWORD,
                            activation_keywords=["你好", "hello"], action_parameters={"target": "打招呼对象", "style": ""},
                            action_require=["需要时使用", " "], associated_types=["text", "emoji"],
                            action_prompt="打招呼", parallel_action=True, foo="bar"),
            "legacy2": Action("legacy2"),
        }
    handlers = {"web_search": "search"}
    out = {}
    for name, decorator in made.items():
        def handler(**kwargs):
            return None
        out[name] = dump(decorator(handler), handlers.get(name, name))
    return out, [str(w.message) for w in caught if w.category is DeprecationWarning]


class SdkVectorsTest(unittest.TestCase):
    def test_component_dumps_equal_the_real_sdks(self):
        ours, _ = decorated()
        theirs = components()
        self.assertEqual(set(ours), set(theirs))
        for name in theirs:
            self.assertEqual(json.dumps(ours[name], ensure_ascii=False, indent=1),
                             json.dumps(theirs[name], ensure_ascii=False, indent=1), name)

    def test_action_warns_as_the_sdk_does(self):
        _, warned = decorated()
        self.assertEqual(warned, ["`Action` 装饰器已废弃，将在内部按 Tool 组件注册；请优先改用 `Tool`。"] * 2)


if __name__ == "__main__":
    unittest.main()
