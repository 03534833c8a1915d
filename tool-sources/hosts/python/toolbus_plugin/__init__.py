"""Write toolbus stdio plugins in Python with a decorator (standard library only).

    from toolbus_plugin import tool, run

    @tool(description="Adds two numbers.")
    def add(a: float, b: float) -> float:
        return a + b

    run()

A parameter named ``ctx`` receives the running call (``await ctx.send_text(...)``, ``ctx.progress``,
``await ctx.ask(...)``, ``ctx.cancelled``, ``ctx.context``); it is not part of the schema."""

import asyncio
import inspect
import json
import os
import typing
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar

from .runtime import Call, JsonObject, PluginError, Runtime, setup_logging

__all__ = ["Call", "JsonObject", "PluginError", "config", "run", "tool", "tools"]
__version__ = "0.1.0"

F = TypeVar("F", bound=Callable[..., Any])

_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}
_ATTRIBUTES = {"optional": "optional", "dangerous": "dangerous", "side_effecting": "sideEffecting",
               "risk": "risk", "groups": "groups", "required_permission": "requiredPermission",
               "channels": "channels", "timeout_ms": "timeoutMs", "visibility": "visibility",
               "cacheable": "cacheable", "max_result_chars": "maxResultChars"}

_registry: Dict[str, Tuple[JsonObject, Callable[..., Any]]] = {}


def _json_type(annotation: Any) -> JsonObject:
    origin = typing.get_origin(annotation)
    if origin is typing.Union:
        rest = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _json_type(rest[0]) if len(rest) == 1 else {}
    if origin in (list, tuple):
        args = typing.get_args(annotation)
        return {"type": "array", "items": _json_type(args[0]) if args else {"type": "string"}}
    if origin is dict:
        return {"type": "object"}
    if annotation in _TYPES:
        schema: JsonObject = {"type": _TYPES[annotation]}
        if annotation is list:
            schema["items"] = {"type": "string"}
        return schema
    return {"type": "string"}


def _schema(function: Callable[..., Any], descriptions: Dict[str, str]) -> JsonObject:
    properties: Dict[str, JsonObject] = {}
    required: List[str] = []
    hints = typing.get_type_hints(function)
    for name, p in inspect.signature(function).parameters.items():
        if name in ("self", "ctx") or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        prop = _json_type(hints.get(name, str))
        if name in descriptions:
            prop["description"] = descriptions[name]
        if p.default is inspect.Parameter.empty:
            required.append(name)
        elif p.default is not None:
            prop["default"] = p.default
        properties[name] = prop
    return {"type": "object", "properties": properties, "required": required}


def tool(name: Optional[str] = None, description: Optional[str] = None, parameters: Optional[JsonObject] = None,
         params: Optional[Dict[str, str]] = None, **attributes: Any) -> Callable[[F], F]:
    """Registers a function as a tool. The schema comes from its signature (``params`` maps parameter
    names to descriptions) unless ``parameters`` gives a JSON Schema; the description defaults to the
    docstring. ``attributes``: optional, dangerous, side_effecting, risk, groups, required_permission,
    channels, timeout_ms, visibility, cacheable, max_result_chars."""
    unknown = set(attributes) - set(_ATTRIBUTES)
    if unknown:
        raise TypeError(f"unknown tool attributes: {sorted(unknown)}")

    def register(function: F) -> F:
        tool_name = name or function.__name__
        declaration: JsonObject = {
            "name": tool_name,
            "description": description if description is not None else inspect.cleandoc(function.__doc__ or ""),
            "inputSchema": parameters if parameters is not None else _schema(function, params or {}),
        }
        for key, value in attributes.items():
            declaration[_ATTRIBUTES[key]] = value
        _registry[tool_name] = (declaration, function)
        return function

    return register


def tools() -> List[JsonObject]:
    """The declarations registered so far."""
    return [d for d, _ in _registry.values()]


_config: JsonObject = {}


def _own_config() -> JsonObject:
    raw = os.environ.get("TOOLBUS_PLUGIN_CONFIG")
    value = json.loads(raw) if raw else {}
    return value if isinstance(value, dict) else {}


def config() -> JsonObject:
    """The plugin's configuration: toolbus.yaml's ``plugins.<id>.config``, else plugin.json's
    ``config``; kept current when toolbus.yaml changes (no restart)."""
    return _config


async def _activate(params: JsonObject) -> List[JsonObject]:
    global _config
    _config = params["config"] if isinstance(params.get("config"), dict) else _own_config()
    return tools()


async def _configure(new_config: Optional[JsonObject], version: str) -> None:
    global _config
    _config = new_config if isinstance(new_config, dict) else _own_config()


async def _execute(call: Call) -> JsonObject:
    entry = _registry.get(call.tool_name)
    if entry is None:
        raise PluginError(f"unknown tool: {call.tool_name}")
    _, function = entry
    kwargs = dict(call.arguments)
    if "ctx" in inspect.signature(function).parameters:
        kwargs["ctx"] = call
    if inspect.iscoroutinefunction(function):
        value = await function(**kwargs)
    else:
        value = await asyncio.to_thread(function, **kwargs)
    if value is None:
        return {}
    if isinstance(value, str):
        return {"result": value}
    return {"result": value}


def run() -> None:
    """Serves the registered tools on stdin/stdout until the host stops the plugin."""
    setup_logging("plugin")
    Runtime(_activate, _execute, configure=_configure).run()
