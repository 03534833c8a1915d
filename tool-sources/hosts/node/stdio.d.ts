// Types of the toolbus stdio protocol (docs/plugins.md §3), for writing a host of your own.

/** A JSON object as the protocol carries it. */
export type JsonObject = Record<string, unknown>;

/** A part of a chat message or of a result's content. */
export interface ContentPart {
  type: 'text' | 'image' | 'audio' | 'resource' | 'resource_link' | string;
  text?: string;
  data?: string;
  mimeType?: string;
  mime_type?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; text?: string; mimeType?: string };
}

/** A tool declaration as `activate` answers it (§3.2): a JSON Schema and toolbus's per-tool attributes (§8.7). */
export interface ToolDeclaration {
  name: string;
  description: string;
  inputSchema: JsonObject;
  optional?: boolean;
  dangerous?: boolean;
  sideEffecting?: boolean;
  risk?: 'low' | 'medium' | 'high';
  groups?: string[];
  requiredPermission?: 'member' | 'admin' | 'owner' | 'master';
  channels?: string[];
  timeoutMs?: number;
  visibility?: 'visible' | 'deferred' | 'hidden';
  cacheable?: boolean;
  maxResultChars?: number;
}

/** Who is asking (`execute_tool`'s `context`); empty fields are left out. */
export interface CallContext {
  streamId?: string;
  turnId?: string;
  toolCallId?: string;
  idempotencyKey?: string;
  userId?: string;
  groupId?: string;
  platform?: string;
  permission?: string;
  channel?: string;
  provider?: string;
  model?: string;
  agentId?: string;
  attempt?: number;
  message?: unknown;
  /** W3C Trace Context of the call's span, to pass on to services the tool calls. */
  traceparent?: string;
  tracestate?: string;
  [key: string]: unknown;
}

/** The answer to an `ask`: the user's action, or `ok: false` with an error. */
export interface AskReply {
  action?: 'accept' | 'decline' | 'cancel' | 'expired';
  content?: JsonObject;
  ok?: boolean;
  error?: string;
}

/** An answer to `execute_tool` without its id (§3.3). */
export interface Answer {
  result?: unknown;
  error?: string;
  content_items?: JsonObject[];
}

/** One `execute_tool` request while it runs. */
export interface Call {
  readonly id: number | string;
  readonly toolName: string;
  readonly args: JsonObject;
  readonly context: CallContext;
  /** Aborted on cancel and timeout; `signal.reason.message` says why (`timeout`, `cancelled`, …). */
  readonly signal: AbortSignal;
  readonly done: boolean;
  /** Sends a chat message now; true when the host accepted it. */
  send(content: ContentPart[]): Promise<boolean>;
  sendText(text: string): Promise<boolean>;
  ask(message: string, schema?: JsonObject, timeoutMs?: number): Promise<AskReply>;
  progress(progress: number, total?: number | null, message?: string | null): void;
}

/** What `serve` runs: the declarations, each call, and the optional lifecycle callbacks. */
export interface Host {
  activate(params: { pluginId?: string; config?: JsonObject; configVersion?: string }): Promise<ToolDeclaration[]>;
  execute(call: Call): Promise<Answer | undefined | null>;
  deactivate?(): Promise<void> | void;
  /** toolbus.yaml's configuration of the plugin changed (null: it gives none any more). */
  configure?(config: JsonObject | null, version: string): Promise<void> | void;
}

export interface Logger {
  debug(...parts: unknown[]): void;
  info(...parts: unknown[]): void;
  warn(...parts: unknown[]): void;
  error(...parts: unknown[]): void;
}

/** An error a handler throws to answer its call with just this message. */
export class PluginError extends Error {}

/** Serves the protocol until stdin ends or `deactivate` arrives, then exits the process. */
export function serve(host: Host, io?: { input?: NodeJS.ReadableStream; output?: NodeJS.WritableStream }): void;

/** Logs to stderr (stdout is the protocol channel), one line per call, prefixed with the level and `prefix`. */
export function makeLogger(prefix: string): Logger;

/** The message of whatever was thrown. */
export function errorText(e: unknown): string;

/** OpenClaw/MCP content parts as an answer: the text parts joined, the media as `content_items`. */
export function contentAnswer(content: ContentPart[]): Answer;

/** Imports a module file anew (a query string defeats the ESM cache, for reloads). */
export function importFresh(file: string, version?: number | string): Promise<Record<string, unknown>>;

/** The `signal.reason` of a cancel: a DOMException named TimeoutError for `timeout`, AbortError otherwise. */
export function abortReason(reason: string): DOMException;
