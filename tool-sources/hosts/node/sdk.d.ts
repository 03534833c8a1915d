// Types of the toolbus plugin SDK: createPlugin().registerTool({...}), then run().
import type { AskReply, CallContext, ContentPart, JsonObject, Logger, ToolDeclaration } from './stdio.js';

export type { AskReply, CallContext, ContentPart, JsonObject, Logger, ToolDeclaration } from './stdio.js';
export { PluginError } from './stdio.js';

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  /** Aborted on cancel and timeout; `signal.reason.message` says why. */
  signal: AbortSignal;
  /** Who is asking: stream, turn and call ids, the user, permission, channel, trace context. */
  context: CallContext;
  /** Sends a chat message now (a string, or content parts); true when the host accepted it. */
  send(message: string | ContentPart[]): Promise<boolean>;
  /** Asks the user; resolves with the answer (`action`, `content`) or `ok: false`. */
  ask(message: string, schema?: JsonObject, timeoutMs?: number): Promise<AskReply>;
  progress(progress: number, total?: number, message?: string): void;
  /** The plugin's configuration when the call started. */
  config: JsonObject;
}

/**
 * A string is the text the model reads; `{ content: [...] }` is read as OpenClaw/MCP content parts;
 * any other value is structured data; undefined or null an empty success.
 */
export type ToolReturn = string | { content: ContentPart[] } | JsonObject | unknown[] | number | boolean | null | undefined;

/** A tool: its name, description, JSON Schema (`parameters` or `inputSchema`), attributes and `execute`. */
export interface ToolDefinition<Args extends JsonObject = JsonObject>
  extends Partial<Omit<ToolDeclaration, 'name' | 'description' | 'inputSchema'>> {
  name: string;
  description?: string;
  parameters?: JsonObject;
  inputSchema?: JsonObject;
  execute(args: Args, ctx: ToolContext): ToolReturn | Promise<ToolReturn>;
}

export interface Plugin {
  /** Logs to stderr, prefixed `plugin.<id>`. */
  readonly logger: Logger;
  /** The plugin's configuration: toolbus.yaml's plugins.<id>.config, else plugin.json's; kept current. */
  readonly config: JsonObject;
  /** @throws TypeError without a name or execute; Error when the name is registered already */
  registerTool<Args extends JsonObject = JsonObject>(tool: ToolDefinition<Args>): void;
  /** Serves the registered tools on stdin/stdout until toolbus stops the plugin. */
  run(): void;
}

export function createPlugin(): Plugin;
