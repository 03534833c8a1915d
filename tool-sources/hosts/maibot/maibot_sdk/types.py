"""Parameter types of MaiBot tool components, with the SDK's schema and description rules."""

from copy import deepcopy
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Dict, List, Optional

#: A JSON Schema (or any JSON object) as a dict.
Schema = Dict[str, Any]


class ToolParamType(str, Enum):
    """The type of a tool parameter."""

    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    FLOAT = "float"
    BOOLEAN = "boolean"
    ARRAY = "array"
    OBJECT = "object"

    def json_type(self) -> str:
        """The JSON Schema type: FLOAT reads as number."""
        return "number" if self in (ToolParamType.FLOAT, ToolParamType.NUMBER) else self.value


class ActivationType(str, Enum):
    """How a legacy Action was activated (kept as metadata only)."""

    NEVER = "never"
    ALWAYS = "always"
    RANDOM = "random"
    KEYWORD = "keyword"


class ChatMode(str, Enum):
    """The chat mode of a legacy Action (kept as metadata only)."""

    FOCUS = "focus"
    NORMAL = "normal"
    ALL = "all"


@dataclass
class ToolParameterInfo:
    """One structured tool parameter."""

    name: str
    param_type: ToolParamType = ToolParamType.STRING
    description: str = ""
    required: bool = True
    enum_values: Optional[List[Any]] = None
    items_schema: Optional[Schema] = None
    properties: Optional[Schema] = None
    required_properties: List[str] = field(default_factory=list)
    additional_properties: Any = None
    default: Any = None

    def to_parameter_schema(self) -> Schema:
        """The parameter's JSON Schema as the SDK writes it."""
        param_type = ToolParamType(self.param_type)
        schema: Schema = {"type": param_type.json_type(), "description": self.description}
        if self.enum_values:
            schema["enum"] = list(self.enum_values)
        if self.default is not None:
            schema["default"] = deepcopy(self.default)
        if param_type == ToolParamType.ARRAY and self.items_schema is not None:
            schema["items"] = deepcopy(self.items_schema)
        if param_type == ToolParamType.OBJECT:
            schema["properties"] = deepcopy(self.properties or {})
            if self.required_properties:
                schema["required"] = list(self.required_properties)
            if self.additional_properties is not None:
                schema["additionalProperties"] = deepcopy(self.additional_properties)
        return schema

    def dump(self) -> Schema:
        """The parameter as the SDK sends it to its host."""
        return {
            "name": self.name,
            "param_type": ToolParamType(self.param_type).value,
            "description": self.description,
            "required": self.required,
            "enum_values": self.enum_values,
            "items_schema": self.items_schema,
            "properties": self.properties,
            "required_properties": list(self.required_properties),
            "additional_properties": self.additional_properties,
            "default": self.default,
        }


def _type_name(value: Any) -> str:
    text = str(value or "").strip().lower()
    return text or "string"


def build_tool_detailed_description(parameters_schema: Optional[Schema], fallback_description: str = "") -> str:
    """The parameter block (参数说明：…) followed, after a blank line, by the fallback text."""
    fallback = str(fallback_description or "").strip()
    if not parameters_schema:
        return fallback
    properties = parameters_schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        return fallback
    required_names = {str(n).strip() for n in parameters_schema.get("required", []) or [] if str(n).strip()}
    lines = ["参数说明："]
    for parameter_name, parameter_schema in properties.items():
        if not isinstance(parameter_schema, dict):
            continue
        name = str(parameter_name).strip()
        required_text = "必填" if name in required_names else "可选"
        description = str(parameter_schema.get("description", "") or "").strip() or "无额外说明"
        line = f"- {name}：{_type_name(parameter_schema.get('type'))}，{required_text}。{description}"
        enum = parameter_schema.get("enum")
        if isinstance(enum, list) and enum:
            line += f" 可选值：{'、'.join(str(i) for i in enum)}。"
        if "default" in parameter_schema:
            line += f" 默认值：{parameter_schema['default']}。"
        lines.append(line)
    if len(lines) == 1:
        return fallback
    if fallback:
        lines.append("")
        lines.append(fallback)
    return "\n".join(lines).strip()


def build_parameters_schema(parameters: Any) -> Optional[Schema]:
    """The SDK form of a tool's parameters (a list or a dict), or None without parameters."""
    if isinstance(parameters, list):
        if not parameters:
            return None
        schema: Schema = {"type": "object", "properties": {p.name: p.to_parameter_schema() for p in parameters}}
        listed = [p.name for p in parameters if p.required]
        if listed:
            schema["required"] = listed
        return schema
    if isinstance(parameters, dict):
        if not parameters:
            return None
        if parameters.get("type") == "object" or "properties" in parameters:
            return dict(parameters)
        properties: Schema = {}
        required = []
        for key, value in parameters.items():
            if not isinstance(value, dict):
                continue
            prop = dict(value)
            if prop.pop("required", False):
                required.append(key)
            properties[key] = prop
        schema = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        return schema
    return None
