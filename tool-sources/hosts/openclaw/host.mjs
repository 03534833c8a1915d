// The entry toolbus starts for an OpenClaw plugin folder, from a checkout or the distribution:
//   node --import ../node/register-shims.mjs host.mjs PLUGIN_DIR
// The host is ../node/openclaw-host.mjs (in the npm package: the toolbus-openclaw-host command).
import '../node/openclaw-host.mjs';
