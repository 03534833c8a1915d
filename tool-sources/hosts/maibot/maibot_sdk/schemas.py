"""The tool declarations the toolbus host sends in ``activate``: the description and JSON Schema the
model receives from MaiBot's host for a component, plus toolbus's per-tool attributes."""

from copy import deepcopy
from typing import Any, Dict, List

from .components import ToolComponentInfo
from .types import Schema, ToolParameterInfo, build_parameters_schema

TYPE_ALIASES = {"integer": "integer", "int": "integer", "number": "number", "float": "number",
                "boolean": "boolean", "bool": "boolean", "array": "array", "object": "object"}

# MaiBot metadata key -> toolbus declaration key
ATTRIBUTES = {"timeout_ms": "timeoutMs", "visibility": "visibility", "dangerous": "dangerous",
              "side_effecting": "sideEffecting", "risk": "risk", "groups": "groups",
              "required_permission": "requiredPermission", "channels": "channels", "optional": "optional",
              "cacheable": "cacheable", "read_only": "cacheable", "max_result_chars": "maxResultChars"}


def _host_type(value: Any) -> str:
    return TYPE_ALIASES.get(str(value or "").strip().lower(), "string")


def _parameter(p: ToolParameterInfo) -> Schema:
    kind = _host_type(getattr(p.param_type, "value", p.param_type))
    schema: Schema = {"type": kind, "description": p.description}
    if p.enum_values:
        schema["enum"] = list(p.enum_values)
    if p.default is not None:
        schema["default"] = deepcopy(p.default)
    if kind == "array":
        if p.items_schema is None:
            raise ValueError("数组参数必须提供 items_schema")
        schema["items"] = deepcopy(p.items_schema)
    if kind == "object":
        schema["properties"] = deepcopy(p.properties or {})
        schema["required"] = list(p.required_properties or [])
        if p.additional_properties is not None:
            schema["additionalProperties"] = deepcopy(p.additional_properties)
    return schema


def model_schema(info: ToolComponentInfo) -> Schema:
    """The argument schema the model receives (always an object schema with ``required``)."""
    if info.parameters_raw:
        schema = build_parameters_schema(info.parameters_raw)
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise ValueError("工具参数 Schema 必须是 object 类型")
        schema = deepcopy(schema)
        if not isinstance(schema.get("required"), list):
            schema["required"] = []
        return schema
    properties: Schema = {}
    required: List[str] = []
    for p in info.parameters:
        properties[p.name] = _parameter(p)
        if p.required:
            required.append(p.name)
    return {"type": "object", "properties": properties, "required": required}


def _attributes(metadata: Dict[str, Any]) -> Dict[str, Any]:
    flat = dict(metadata.get("metadata") or {}) if isinstance(metadata.get("metadata"), dict) else {}
    flat.update({k: v for k, v in metadata.items() if k != "metadata"})
    out: Dict[str, Any] = {}
    for key, target in ATTRIBUTES.items():
        if key in flat and flat[key] is not None:
            out[target] = flat[key]
    if "visibility" in out:
        out["visibility"] = str(out["visibility"]).strip().lower()
        if out["visibility"] not in ("visible", "deferred", "hidden"):
            del out["visibility"]
    if "visibility" not in out and flat.get("core_tool"):
        out["visibility"] = "visible"
    if "timeoutMs" in out:
        out["timeoutMs"] = int(out["timeoutMs"] or 0)
        if out["timeoutMs"] <= 0:
            del out["timeoutMs"]
    return out


def declaration(info: ToolComponentInfo) -> Schema:
    """The activate declaration of one component."""
    tool = {"name": info.name, "description": info.description or f"工具 {info.name}",
            "inputSchema": model_schema(info)}
    tool.update(_attributes(info.metadata))
    return tool
