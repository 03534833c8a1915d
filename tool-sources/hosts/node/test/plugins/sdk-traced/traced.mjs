// A plugin of the Node SDK that reports the trace context its calls see: ctx.trace, and currentTrace()
// after an await, in a timer callback and in a promise chain the handler started.
import { createPlugin, currentTrace } from '../../../sdk.mjs';

const plugin = createPlugin();
const described = (t) => (t ? { headers: t.headers(), traceId: t.traceId, spanId: t.spanId, sampled: t.sampled } : null);

plugin.registerTool({
  name: 'trace_of',
  description: 'The trace context of this call',
  async execute(_args, ctx) {
    await new Promise((r) => setTimeout(r, 5));
    const inTimer = await new Promise((r) => setTimeout(() => r(described(currentTrace())), 1));
    return { ctx: described(ctx.trace), afterAwait: described(currentTrace()), inTimer };
  },
});
plugin.run();
