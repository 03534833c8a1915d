"""Runs a MaiBot plugin folder as a toolbus stdio plugin from a checkout: ``python3 -u host.py PLUGIN_DIR``.

This is what toolbus starts for a MaiBot plugin folder. It puts this folder (``maibot_sdk``,
``toolbus_maibot``) and the Python SDK (``../python``) first on ``sys.path``, so it needs nothing
installed; the host itself is ``toolbus_maibot/host.py``. Installed with pip, the same host is
``toolbus-maibot-host PLUGIN_DIR``."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(HERE), "python")]

from toolbus_maibot.host import main  # noqa: E402

if __name__ == "__main__":
    main()
