// A plugin written with toolbus's Node SDK. It imports sdk.mjs by its path in the checkout, so it runs
// without an install; an installed package is imported as 'toolbus-plugin' (tool-sources/hosts/node/README.md).
import { createPlugin } from '../../../../tool-sources/hosts/node/sdk.mjs';

const plugin = createPlugin();

plugin.registerTool({
  name: 'forecast',
  description: 'Forecast for a city, day by day; reports progress per day.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } },
    required: ['city'],
  },
  cacheable: true,
  async execute({ city, days = 3 }, ctx) {
    const out = [];
    for (let d = 1; d <= days; d++) {
      if (ctx.signal.aborted) throw new Error('cancelled');
      ctx.progress(d, days, `day ${d}`);
      out.push(`${city} day ${d}: ${10 + d} °C`);
    }
    return out.join('\n');
  },
});

plugin.run();
