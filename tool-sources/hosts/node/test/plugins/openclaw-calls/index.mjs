import { writeFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4//8/AAX+Av5B4iG8AAAAAElFTkSuQmCC';

export default function (api) {
  api.logger.info('calls plugin registering');
  console.log('a stray console.log that must not reach stdout');
  api.registerTool({
    name: 'chart',
    description: 'A text and an image',
    parameters: Type.Object({ title: Type.String(), size: Type.Optional(Type.Integer({ minimum: 1 })) }),
    async execute(id, params) {
      return { content: [{ type: 'text', text: `${params.title} (${id})` }, { type: 'image', data: PNG, mimeType: 'image/png' }] };
    },
  });
  api.registerTool({
    name: 'wait_abort',
    description: 'Waits until its signal aborts',
    parameters: Type.Object({ marker: Type.String() }),
    execute(_id, params, signal) {
      return new Promise((resolve, reject) => {
        signal.addEventListener('abort', () => {
          writeFileSync(params.marker, `aborted: ${signal.reason?.message}`);
          reject(signal.reason);
        });
      });
    },
  });
  api.registerTool({
    name: 'boom',
    description: 'Throws',
    parameters: { type: 'object', properties: {} },
    async execute() {
      throw new Error('exploded');
    },
  });
  api.registerTool({
    name: 'show_config',
    description: 'Returns the plugin config',
    parameters: { type: 'object', properties: {} },
    dangerous: true,
    requiredPermission: 'admin',
    groups: ['ops'],
    async execute() {
      return { content: [{ type: 'text', text: JSON.stringify(api.config) }] };
    },
  }, { optional: true });
}
