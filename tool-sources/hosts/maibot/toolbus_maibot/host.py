"""The MaiBot host: runs a MaiBot plugin folder as a toolbus stdio plugin.

Loads ``PLUGIN_DIR/plugin.py``, calls its ``create_plugin()``, declares the @Tool and @Action
components with the descriptions and schemas MaiBot's host gives the model, and runs calls. Started as
``toolbus-maibot-host PLUGIN_DIR`` or ``python -m toolbus_maibot PLUGIN_DIR`` where the package is
installed, and as ``python3 -u tool-sources/hosts/maibot/host.py PLUGIN_DIR`` from a checkout (what
toolbus runs for a MaiBot plugin folder)."""

import asyncio
import importlib.util
import inspect
import json
import logging
import os
import sys
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple

from maibot_sdk.components import COMPONENT_ATTRIBUTE, ToolComponentInfo
from maibot_sdk.context import PluginContext
from maibot_sdk.plugin import MaiBotPlugin
from maibot_sdk.schemas import declaration
from toolbus_plugin.runtime import Call, JsonObject, PluginError, Runtime, setup_logging

CONTEXT_KEYS = (("stream_id", "streamId"), ("chat_id", "streamId"), ("group_id", "groupId"),
                ("user_id", "userId"), ("platform", "platform"))


def load_plugin(folder: str) -> MaiBotPlugin:
    """Imports plugin.py of the folder and returns ``create_plugin()``'s plugin."""
    path = os.path.join(folder, "plugin.py")
    sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location("maibot_plugin_" + os.path.basename(folder).replace("-", "_"), path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"{path} cannot be loaded")
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DeprecationWarning)
        spec.loader.exec_module(module)
    for w in caught:
        logging.getLogger("maibot").warning("%s", w.message)
    factory = getattr(module, "create_plugin", None)
    if not callable(factory):
        raise RuntimeError(f"{path} defines no create_plugin()")
    plugin = factory()
    if plugin is None or isinstance(plugin, (str, bytes, int, float, bool, dict, list, tuple)):
        raise RuntimeError(f"create_plugin() of {path} returned {type(plugin).__name__}, not a MaiBotPlugin")
    # duck-typed: a plugin need not subclass MaiBotPlugin, only have its hooks
    plugin_object: MaiBotPlugin = plugin
    return plugin_object


Component = Tuple[ToolComponentInfo, Callable[..., Any]]


def components(plugin: Any) -> Dict[str, Component]:
    """The plugin's components by tool name, first one wins (as MaiBot keeps the first)."""
    found: Dict[str, Component] = {}
    attrs: List[str] = []
    for cls in reversed(type(plugin).__mro__):
        attrs.extend(a for a in vars(cls) if a not in attrs)
    for attr in attrs:
        member = getattr(type(plugin), attr, None)
        info = getattr(member, COMPONENT_ATTRIBUTE, None)
        if info is None:
            continue
        if info.name in found:
            logging.getLogger("maibot").warning("检测到重复TOOL名称 %s，将只保留首个匹配项", info.name)
            continue
        found[info.name] = (info, getattr(plugin, attr))
    return found


def payload(info: ToolComponentInfo, arguments: JsonObject, context: JsonObject) -> JsonObject:
    """The handler's keyword arguments: the model's, plus the caller's context where the model gave none."""
    kwargs = dict(arguments)
    for key, source in CONTEXT_KEYS:
        value = context.get(source)
        if value and not kwargs.get(key):
            kwargs[key] = value
    if context.get("message") is not None and "message" not in kwargs:
        kwargs["message"] = context["message"]
    if info.invoke_method == "plugin.invoke_action":
        kwargs.setdefault("reasoning", "")
        kwargs["action_data"] = dict(arguments)
    return kwargs


def accepted(handler: Callable[..., Any], kwargs: JsonObject, arguments: JsonObject) -> JsonObject:
    """Drops injected keys a handler without **kwargs cannot take (the model's own arguments stay)."""
    try:
        parameters = inspect.signature(handler).parameters
    except (TypeError, ValueError):
        return kwargs
    if any(p.kind == inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return kwargs
    return {k: v for k, v in kwargs.items() if k in parameters or k in arguments}


def answer(value: Any) -> JsonObject:
    """A handler's return value as a toolbus answer (toolbus reads maps and (bool, text) lists as MaiBot does)."""
    if value is None:
        return {}
    if isinstance(value, str):
        return {"result": value.strip()}
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, (dict, list, int, float, bool)):
        return {"result": json.loads(json.dumps(value, ensure_ascii=False, default=str))}
    return {"result": str(value).strip()}


class Host:
    """One plugin folder's plugin, its components, and the protocol callbacks that run them."""

    def __init__(self, folder: str):
        self.folder = folder
        self.plugin: Optional[MaiBotPlugin] = None
        self.tools: Dict[str, Component] = {}

    async def activate(self, params: JsonObject) -> List[JsonObject]:
        plugin_id = str(params.get("pluginId") or os.path.basename(self.folder))
        plugin = self.plugin = load_plugin(self.folder)
        plugin.ctx = PluginContext(plugin_id)
        plugin.config = config(self.folder, params)
        self.tools = components(plugin)
        await maybe_await(plugin.on_load())
        if plugin.config:
            await maybe_await(plugin.on_config_update("self", plugin.config, str(params.get("configVersion") or "")))
        declared = []
        for name, (info, _) in self.tools.items():
            try:
                declared.append(declaration(info))
            except ValueError as e:
                logging.getLogger("maibot").warning("tool %s is not offered: %s", name, e)
        return declared

    async def execute(self, call: Call) -> JsonObject:
        entry = self.tools.get(call.tool_name)
        if entry is None:
            raise PluginError(f"未找到插件工具：{call.tool_name}")
        info, handler = entry
        kwargs = accepted(handler, payload(info, call.arguments, call.context), call.arguments)
        if inspect.iscoroutinefunction(handler):
            value = await handler(**kwargs)
        else:
            value = await asyncio.to_thread(handler, **kwargs)
            if inspect.isawaitable(value):
                value = await value
        return answer(value)

    async def configure(self, new_config: Optional[JsonObject], version: str) -> None:
        """toolbus.yaml's config changed: ``self.config`` and ``on_config_update``, no restart.
        ``None`` means toolbus.yaml no longer configures the plugin: its own config applies again."""
        if self.plugin is None:
            return
        self.plugin.config = new_config if isinstance(new_config, dict) else config(self.folder, {})
        await maybe_await(self.plugin.on_config_update("self", self.plugin.config, version))

    async def deactivate(self) -> None:
        if self.plugin is not None:
            await maybe_await(self.plugin.on_unload())


async def maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def config(folder: str, params: JsonObject) -> JsonObject:
    """The plugin's config: activate's ``config``, else TOOLBUS_PLUGIN_CONFIG (JSON), else config.toml."""
    given = params.get("config")
    if isinstance(given, dict):
        return given
    env = os.environ.get("TOOLBUS_PLUGIN_CONFIG")
    if env:
        value = json.loads(env)
        return value if isinstance(value, dict) else {}
    path = os.path.join(folder, "config.toml")
    if os.path.isfile(path):
        try:
            import tomllib
        except ImportError:  # Python before 3.11
            return {}
        with open(path, "rb") as f:
            return tomllib.load(f)
    return {}


def main() -> None:
    """Serves the plugin folder named by the only argument until toolbus stops the host."""
    if len(sys.argv) != 2:
        print("usage: toolbus-maibot-host PLUGIN_DIR", file=sys.stderr)
        sys.exit(2)
    setup_logging("maibot")
    host = Host(os.path.abspath(sys.argv[1]))
    Runtime(host.activate, host.execute, host.deactivate, configure=host.configure).run()


if __name__ == "__main__":
    main()
