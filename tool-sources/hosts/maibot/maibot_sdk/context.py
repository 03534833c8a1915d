"""``self.ctx`` of a plugin: logger, send (to the chat of the running call) and config."""

import logging
from typing import Any, Dict, List, Optional

from toolbus_plugin.runtime import current_call


class SendApi:
    """``ctx.send``: messages go to the chat of the tool call that is running (toolbus send_message)."""

    def __init__(self, logger: logging.Logger):
        self._log = logger

    async def _send(self, content: List[Dict[str, Any]]) -> bool:
        call = current_call.get()
        if call is None or call.done:
            self._log.warning("ctx.send outside a tool call is not supported; the message is dropped")
            return False
        return await call.send(content)

    async def text(self, text: str, stream_id: Optional[str] = None, **kwargs: Any) -> bool:
        """Sends a text message."""
        return await self._send([{"type": "text", "text": str(text)}])

    async def image(self, image_base64: str, stream_id: Optional[str] = None, mime_type: str = "image/png",
                    **kwargs: Any) -> bool:
        """Sends an image (base64)."""
        return await self._send([{"type": "image", "mimeType": mime_type, "data": image_base64}])

    async def emoji(self, emoji_base64: str, stream_id: Optional[str] = None, **kwargs: Any) -> bool:
        """Sends an emoji image (base64)."""
        return await self.image(emoji_base64, stream_id, **kwargs)


class PluginContext:
    """What a plugin reaches through ``self.ctx``."""

    def __init__(self, plugin_id: str):
        self.plugin_id = plugin_id
        self.logger = logging.getLogger(f"plugin.{plugin_id}")
        self.send = SendApi(self.logger)
