export default {
  type: 'function',
  function: {
    name: 'fn_shape',
    description: 'OpenAI function shape',
    parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  },
  run: async (args) => ({ text: `n=${args.n}`, doubled: args.n * 2 }),
};
