"""toolbus's host for MaiBot plugins: ``toolbus-maibot-host PLUGIN_DIR`` (or ``python -m toolbus_maibot``)
runs a MaiBot plugin folder as a toolbus stdio plugin. The ``maibot_sdk`` package beside it is the API
those plugins import."""

__version__ = "0.1.0"
