#!/usr/bin/env node
// toolbus-openclaw-host PLUGIN_DIR: runs an OpenClaw plugin folder as a toolbus stdio plugin. The resolve
// hook goes in first, so a plugin importing @sinclair/typebox without having it gets the stand-in.
import '../register-shims.mjs';
import '../openclaw-host.mjs';
