export default function (api) {
  api.registerTool({
    name: 'echo',
    description: 'Echo the text back.',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    async execute(_id, params) {
      return { content: [{ type: 'text', text: params.text }] };
    },
  });
}
