export default {
  name: 'traced',
  description: 'The trace context of this call, from the ChatAI context',
  parameters: { type: 'object', properties: {} },
  async run(_args, context) {
    return { headers: context.trace?.headers() ?? null, spanId: context.trace?.spanId ?? null };
  },
};
