"""The @Tool and legacy @Action decorators."""

import warnings
from typing import Any, Callable, Dict, List, Optional, TypeVar

from .types import (ActivationType, ChatMode, Schema, ToolParameterInfo, build_parameters_schema,
                    build_tool_detailed_description)

F = TypeVar("F", bound=Callable[..., Any])

COMPONENT_ATTRIBUTE = "__maibot_component_info__"


class ToolComponentInfo:
    """What a decorator records about one tool component."""

    def __init__(self, name: str, description: str, detailed_description: str,
                 parameters: List[ToolParameterInfo], parameters_raw: Schema, invoke_method: str,
                 metadata: Dict[str, Any]):
        self.name = name
        self.description = description
        self.brief_description = description
        self.detailed_description = detailed_description
        self.parameters = parameters
        self.parameters_raw = parameters_raw
        self.invoke_method = invoke_method
        self.metadata = metadata
        self.enabled = True

    def get_parameters_schema(self) -> Optional[Schema]:
        """The SDK form of the parameter schema, or None."""
        if self.parameters_raw:
            return build_parameters_schema(self.parameters_raw)
        return build_parameters_schema(self.parameters)

    def dump(self) -> Dict[str, Any]:
        """The component as the SDK sends it to its host (metadata nested, as SDK 2.6 does)."""
        return {
            "description": self.description,
            "enabled": self.enabled,
            "metadata": dict(self.metadata),
            "brief_description": self.brief_description,
            "detailed_description": self.detailed_description,
            "parameters": [p.dump() for p in self.parameters],
            "parameters_raw": dict(self.parameters_raw),
            "invoke_method": self.invoke_method,
        }


def Tool(name: str, description: str = "", brief_description: str = "", detailed_description: str = "",
         parameters: Any = None, **metadata: Any) -> Callable[[F], F]:
    """Declares a method as a tool the model may call."""
    brief = str(brief_description or description or f"工具 {name}").strip()
    listed = list(parameters) if isinstance(parameters, list) else []
    raw = dict(parameters) if isinstance(parameters, dict) else {}
    schema = build_parameters_schema(parameters)
    detailed = build_tool_detailed_description(schema, str(detailed_description or "").strip())
    info = ToolComponentInfo(name, brief, detailed, listed, raw, "plugin.invoke_tool", dict(metadata))

    def decorate(function: F) -> F:
        setattr(function, COMPONENT_ATTRIBUTE, info)
        return function

    return decorate


def _action_schema(action_parameters: Dict[str, Any]) -> Schema:
    properties: Schema = {}
    for key, text in (action_parameters or {}).items():
        name = str(key).strip()
        if not name:
            continue
        properties[name] = {"type": "string", "description": str(text or "").strip() or "兼容旧 Action 参数"}
    return {"type": "object", "properties": properties} if properties else {}


def _enum_value(value: Any) -> Any:
    return value.value if hasattr(value, "value") else value


def Action(name: str, description: str = "", activation_type: Any = ActivationType.ALWAYS,
           activation_keywords: Optional[List[Any]] = None, activation_probability: float = 1.0,
           chat_mode: Any = ChatMode.NORMAL, action_parameters: Optional[Dict[str, Any]] = None,
           action_require: Optional[List[Any]] = None, associated_types: Optional[List[Any]] = None,
           parallel_action: bool = False, action_prompt: str = "", **metadata: Any) -> Callable[[F], F]:
    """The legacy Action decorator: registered as a tool whose parameters are all optional strings."""
    warnings.warn("`Action` 装饰器已废弃，将在内部按 Tool 组件注册；请优先改用 `Tool`。",
                  DeprecationWarning, stacklevel=2)
    brief = str(description or f"工具 {name}").strip()
    keywords = list(activation_keywords or [])
    requires = list(action_require or [])
    types = list(associated_types or [])
    schema = _action_schema(action_parameters or {})
    parts: List[str] = []
    block = build_tool_detailed_description(schema or None)
    if block:
        parts.append(block)
    tips = [str(r).strip() for r in requires if str(r).strip()]
    if tips:
        parts.append("使用建议：\n" + "\n".join(f"- {t}" for t in tips))
    if types:
        parts.append(f"适用消息类型：{'、'.join(str(t) for t in types)}。")
    activation = [f"兼容旧 Action 激活方式：{_enum_value(activation_type)}。"]
    if keywords:
        activation.append(f"激活关键词：{'、'.join(str(k) for k in keywords)}。")
    if str(action_prompt or "").strip():
        activation.append(f"原始 Action 提示语：{str(action_prompt).strip()}。")
    parts.append("\n".join(activation))
    legacy = dict(metadata)
    legacy.update({
        "legacy_action": True,
        "legacy_component_type": "ACTION",
        "activation_type": _enum_value(activation_type),
        "activation_keywords": keywords,
        "activation_probability": activation_probability,
        "chat_mode": _enum_value(chat_mode),
        "action_parameters": dict(action_parameters or {}),
        "action_require": requires,
        "associated_types": types,
        "parallel_action": parallel_action,
        "action_prompt": action_prompt,
    })
    info = ToolComponentInfo(name, brief, "\n\n".join(parts).strip(), [], schema, "plugin.invoke_action", legacy)

    def decorate(function: F) -> F:
        setattr(function, COMPONENT_ATTRIBUTE, info)
        return function

    return decorate
