"""Runs a MaiBot plugin folder as a toolbus stdio plugin: ``python3 -u host.py PLUGIN_DIR``.

Loads ``PLUGIN_DIR/plugin.py``, calls its ``create_plugin()``, declares the @Tool and @Action
components with the descriptions and schemas MaiBot's host gives the model, and runs calls."""

import asyncio
import importlib.util
import inspect
import json
import logging
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

from maibot_sdk.components import COMPONENT_ATTRIBUTE  # noqa: E402
from maibot_sdk.context import PluginContext  # noqa: E402
from maibot_sdk.schemas import declaration  # noqa: E402
from toolbus_plugin.runtime import PluginError, Runtime, setup_logging  # noqa: E402

CONTEXT_KEYS = (("stream_id", "streamId"), ("chat_id", "streamId"), ("group_id", "groupId"),
                ("user_id", "userId"), ("platform", "platform"))


def load_plugin(folder: str):
    """Imports plugin.py of the folder and returns ``create_plugin()``'s plugin."""
    path = os.path.join(folder, "plugin.py")
    sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location("maibot_plugin_" + os.path.basename(folder).replace("-", "_"), path)
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
    return plugin


def components(plugin) -> dict:
    """The plugin's components by tool name, first one wins (as MaiBot keeps the first)."""
    found = {}
    attrs = []
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


def payload(info, arguments: dict, context: dict) -> dict:
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


def accepted(handler, kwargs: dict, arguments: dict) -> dict:
    """Drops injected keys a handler without **kwargs cannot take (the model's own arguments stay)."""
    try:
        parameters = inspect.signature(handler).parameters
    except (TypeError, ValueError):
        return kwargs
    if any(p.kind == inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return kwargs
    return {k: v for k, v in kwargs.items() if k in parameters or k in arguments}


def answer(value) -> dict:
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
    def __init__(self, folder: str):
        self.folder = folder
        self.plugin = None
        self.tools = {}

    async def activate(self, params: dict) -> list:
        plugin_id = str(params.get("pluginId") or os.path.basename(self.folder))
        self.plugin = load_plugin(self.folder)
        self.plugin.ctx = PluginContext(plugin_id)
        self.plugin.config = config(self.folder, params)
        self.tools = components(self.plugin)
        await maybe_await(self.plugin.on_load())
        if self.plugin.config:
            await maybe_await(self.plugin.on_config_update("self", self.plugin.config,
                                                           str(params.get("configVersion") or "")))
        declared = []
        for name, (info, _) in self.tools.items():
            try:
                declared.append(declaration(info))
            except ValueError as e:
                logging.getLogger("maibot").warning("tool %s is not offered: %s", name, e)
        return declared

    async def execute(self, call) -> dict:
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

    async def configure(self, new_config, version: str) -> None:
        """toolbus.yaml's config changed: ``self.config`` and ``on_config_update``, no restart.
        ``None`` means toolbus.yaml no longer configures the plugin: its own config applies again."""
        if self.plugin is None:
            return
        self.plugin.config = new_config if isinstance(new_config, dict) else config(self.folder, {})
        await maybe_await(self.plugin.on_config_update("self", self.plugin.config, version))

    async def deactivate(self) -> None:
        if self.plugin is not None:
            await maybe_await(self.plugin.on_unload())


async def maybe_await(value):
    return await value if inspect.isawaitable(value) else value


def config(folder: str, params: dict) -> dict:
    """The plugin's config: activate's ``config``, else TOOLBUS_PLUGIN_CONFIG (JSON), else config.toml."""
    if isinstance(params.get("config"), dict):
        return params["config"]
    env = os.environ.get("TOOLBUS_PLUGIN_CONFIG")
    if env:
        return json.loads(env)
    path = os.path.join(folder, "config.toml")
    if os.path.isfile(path):
        try:
            import tomllib
        except ImportError:
            return {}
        with open(path, "rb") as f:
            return tomllib.load(f)
    return {}


def main() -> None:
    if len(sys.argv) != 2:
        print("usage: host.py PLUGIN_DIR", file=sys.stderr)
        sys.exit(2)
    setup_logging("maibot")
    host = Host(os.path.abspath(sys.argv[1]))
    Runtime(host.activate, host.execute, host.deactivate, configure=host.configure).run()


if __name__ == "__main__":
    main()
