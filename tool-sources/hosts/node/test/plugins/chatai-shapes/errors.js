export default [
  { name: 'throws', description: 'throws', inputSchema: { type: 'object', properties: {} },
    handler: async () => { throw new Error('Operation failed: Permission denied'); } },
  { name: 'returns_error', description: 'returns an error object', inputSchema: { type: 'object', properties: {} },
    handler: async () => ({ error: true, message: 'Operation failed' }) },
  { name: 'never', description: 'never resolves', inputSchema: { type: 'object', properties: {} },
    handler: () => new Promise(() => {}) },
];
