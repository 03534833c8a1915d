"""The plugin base class."""

from typing import Any, Dict


class MaiBotPlugin:
    """Base class of a MaiBot plugin; the host sets ``ctx`` before ``on_load``."""

    ctx: Any = None
    config: Dict[str, Any] = {}

    async def on_load(self) -> None:
        """Called once after the plugin is created."""

    async def on_unload(self) -> None:
        """Called once before the host exits."""

    async def on_config_update(self, scope: str, config_data: Dict[str, Any], version: str) -> None:
        """Called with the plugin's configuration."""

    def get_config(self, key: str, default: Any = None) -> Any:
        """A value of the plugin's configuration by dotted key."""
        node: Any = self.config
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node
