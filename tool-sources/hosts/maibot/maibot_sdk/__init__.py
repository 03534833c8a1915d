"""A maibot_sdk-compatible package for running MaiBot plugins under toolbus (own code, same API)."""

from .components import Action, Tool
from .plugin import MaiBotPlugin
from .types import ActivationType, ChatMode, ToolParameterInfo, ToolParamType

__all__ = ["Action", "ActivationType", "ChatMode", "MaiBotPlugin", "Tool", "ToolParameterInfo", "ToolParamType"]
__version__ = "2.6.0+toolbus"
