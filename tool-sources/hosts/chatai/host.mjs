// The entry toolbus starts for a ChatAI tools folder, from a checkout or the distribution:
//   node --experimental-detect-module host.mjs TOOLS_DIR
// The host is ../node/chatai-host.mjs (in the npm package: the toolbus-chatai-host command).
import '../node/chatai-host.mjs';
