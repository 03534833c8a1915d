// An OpenClaw plugin that reads its call's trace context through the toolbus SDK's currentTrace() (the
// OpenClaw tool API has no context argument); under the host the import resolves without an install.
import { currentTrace } from 'toolbus-plugin';

export default function (api) {
  api.registerTool({
    name: 'traced',
    description: 'The trace headers of this call',
    parameters: { type: 'object', properties: {} },
    async execute() {
      await Promise.resolve();
      return { content: [{ type: 'text', text: JSON.stringify(currentTrace()?.headers() ?? null) }] };
    },
  });
}
