export default {
  id: 'reg',
  register(api) {
    api.registerTool({
      name: 'plain',
      description: 'register(api) form, returns a bare string',
      parameters: { type: 'object', properties: {} },
      async execute() {
        return 'plain text';
      },
    });
    api.registerHook('before_tool_call', () => {});
  },
};
