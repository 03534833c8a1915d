"""``python -m toolbus_maibot PLUGIN_DIR``."""

from .host import main

main()
