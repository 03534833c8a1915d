// Module resolve hook: bare imports a plugin may use without npm packages installed resolve to the
// host's own stand-ins. A module the plugin does have installed always wins.
const SHIMS = {
  '@sinclair/typebox': new URL('./typebox.mjs', import.meta.url).href,
  // a framework plugin that imports the SDK (currentTrace) without installing it gets the host's own
  'toolbus-plugin': new URL('./sdk.mjs', import.meta.url).href,
};

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (e) {
    if (Object.hasOwn(SHIMS, specifier)) return { url: SHIMS[specifier], shortCircuit: true };
    throw e;
  }
}
