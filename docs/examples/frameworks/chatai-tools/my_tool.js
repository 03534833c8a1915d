// ChatAI's tool definition format, as its documentation writes it.
export default {
  // Tool name (unique identifier, snake_case format)
  name: 'my_tool',

  // Tool description (visible to AI, clear description helps AI call correctly)
  description: 'Tool function description, explain when to use and parameter meanings',

  // Parameter definition (JSON Schema format)
  inputSchema: {
    type: 'object',
    properties: {
      param1: {
        type: 'string',
        description: 'Parameter description'
      }
    },
    required: ['param1']
  },

  // Handler function (async)
  handler: async (args) => {
    // Implementation logic
    return { text: `got ${args.param1}` }
  }
}
