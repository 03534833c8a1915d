// Types of the toolbus client. Events keep the wire's snake_case field names (docs/protocol.md).

/** W3C Trace Context of the span that produced an event (the call's, or the turn's), when it has one. */
export interface Traced { traceparent?: string; tracestate?: string }

export interface MediaRef { index: string; type: string; mime_type?: string; name?: string; uri?: string }
export interface ContentPart { type: 'text' | 'image' | 'audio' | string; text?: string; mime_type?: string; data?: string }

export interface ToolResultEvent extends Traced {
  type: 'tool_result'; stream_id: string; turn_id: string; tool_call_id: string; name: string; content: string;
  is_error: boolean; error?: { code: string; message: string }; data?: unknown; metadata: Record<string, unknown>;
  media: MediaRef[]; attempts: number; cached: boolean; elapsed_ms: number;
}
export interface UserMessageEvent extends Traced {
  type: 'user_message'; stream_id: string; turn_id: string; message_id: string; tool_call_id: string;
  source: string; content: ContentPart[]; visible_text: string;
}
export interface TurnCompletedEvent extends Traced { type: 'turn_completed'; stream_id: string; turn_id: string; tool_call_ids: string[]; error_count: number; elapsed_ms: number }
export interface ToolProgressEvent extends Traced { type: 'tool_progress'; stream_id: string; turn_id: string; tool_call_id: string; name: string; progress: number; total?: number; message?: string }
export interface SendMessageEvent extends Traced { type: 'send_message'; stream_id: string; turn_id: string; tool_call_id: string; message_id: string; content: ContentPart[]; text(): string }
export interface ApprovalCall { tool_call_id: string; name: string; risk: 'low' | 'medium' | 'high'; arguments_summary: string }
export interface ApprovalRequestEvent extends Traced {
  type: 'approval_request'; stream_id: string; turn_id: string; approval_id: string; expires_at_ms: number;
  calls: ApprovalCall[]; text: string;
  /** Approves every call not answered yet, or only toolCallId; arguments replaces that call's arguments (the user's edit). */
  approve(opts?: { toolCallId?: string; arguments?: Record<string, unknown> }): Promise<void>;
  /** Denies every call not answered yet, or only toolCallId; the model reads message (at most 2,000 characters). */
  deny(opts?: { toolCallId?: string; message?: string }): Promise<void>;
  approveSession(opts?: { toolCallId?: string; arguments?: Record<string, unknown> }): Promise<void>;
}
export interface InputRequestEvent extends Traced {
  type: 'input_request'; stream_id: string; turn_id: string; tool_call_id: string; input_id: string; expires_at_ms: number;
  message: string; schema: Record<string, unknown>;
  accept(content: Record<string, unknown>): Promise<void>; decline(): Promise<void>; cancel(): Promise<void>;
}
export interface ErrorEvent extends Traced { type: 'error'; stream_id?: string; turn_id?: string; code: string; message: string }
export type ToolbusEvent = ToolResultEvent | UserMessageEvent | TurnCompletedEvent | ToolProgressEvent | SendMessageEvent
  | ApprovalRequestEvent | InputRequestEvent | ErrorEvent;

/**
 * Who made a call: toolbus's shape, Anthropic's tool_use `caller` (code_execution_*) or OpenAI's
 * function_call `caller` (program). Absent: direct.
 */
export type Caller =
  | { type: 'direct' }
  | { type: 'programmatic'; id?: string }
  | { type: `code_execution_${string}`; tool_id?: string }
  | { type: 'program'; caller_id?: string };

/** A toolbus call, an OpenAI tool_calls item, an OpenAI Responses function_call or an Anthropic tool_use block. */
export type Call =
  | { tool_call_id?: string; name: string; arguments?: Record<string, unknown> | string; caller?: Caller }
  | { id: string; type: 'function'; function: { name: string; arguments: string }; caller?: Caller }
  | { type: 'function_call'; call_id: string; name: string; arguments: string; caller?: Caller }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown>; caller?: Caller };

export interface Callbacks {
  onApprovalRequest?: (e: ApprovalRequestEvent) => unknown;
  onInputRequest?: (e: InputRequestEvent) => unknown;
  onSendMessage?: (e: SendMessageEvent) => unknown;
  onProgress?: (e: ToolProgressEvent) => unknown;
  onError?: (e: ErrorEvent) => unknown;
}

export interface ClientOptions extends Callbacks {
  token?: string;
  /** stdio: the command that starts the sidecar, e.g. ['./toolbus', 'serve', '--bus', 'stdio']. */
  command?: string[];
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** HTTP: how long a request waits for the gateway's status and headers (default 30000 ms). */
  answerTimeoutMs?: number;
  reconnect?: boolean;
  callsStream?: string;
  resultsKey?: string;
  callsTopic?: string;
  resultsTopic?: string;
  groupId?: string;
  dedupCapacity?: number;
}

export interface RunTurnOptions extends Callbacks {
  context?: Record<string, string>;
  message?: unknown;
  turnId?: string;
  /** W3C Trace Context of the bot core's span: the turn continues that trace, and its events carry it back. */
  traceparent?: string;
  tracestate?: string;
  timeoutMs?: number;
}

export class Turn {
  readonly streamId: string;
  readonly turnId: string;
  readonly events: ToolbusEvent[];
  get results(): ToolResultEvent[];
  get media(): UserMessageEvent[];
  get completed(): TurnCompletedEvent | null;
  get errorCount(): number;
  result(toolCallId: string): ToolResultEvent | null;
  /** OpenAI Chat Completions messages: role "tool" in call order, then role "user" with image_url parts. */
  toOpenAI(): Array<Record<string, unknown>>;
  toOpenAIResponses(): Array<Record<string, unknown>>;
  /** Anthropic Messages: one user message, tool_result blocks first, then image blocks. */
  toAnthropic(): Array<Record<string, unknown>>;
  toGemini(): Array<Record<string, unknown>>;
}

export class Client {
  constructor(url: string, options?: ClientOptions);
  readonly duplicatesDropped: number;
  connect(): Promise<this>;
  close(): Promise<void>;
  runTurn(streamId: string, calls: Call[], options?: RunTurnOptions): Promise<Turn>;
  /** `traceparent` / `tracestate`: the W3C trace context of the sender's span (toolbus's span of the control joins it). */
  cancel(streamId: string, target?: { turnId?: string; toolCallId?: string; reason?: string; traceparent?: string; tracestate?: string }): Promise<void>;
  respondApproval(request: ApprovalRequestEvent, decision: 'approve' | 'deny' | 'approve_session', opts?: { toolCallId?: string; arguments?: Record<string, unknown>; message?: string; traceparent?: string; tracestate?: string }): Promise<void>;
  respondInput(request: InputRequestEvent, action: 'accept' | 'decline' | 'cancel', content?: Record<string, unknown>, trace?: { traceparent?: string; tracestate?: string }): Promise<void>;
  listTools(streamId: string, options?: { context?: Record<string, string>; format?: 'openai' | 'anthropic' | 'mcp'; text?: string; timeoutMs?: number }): Promise<Array<Record<string, unknown>>>;
  listSkills(streamId: string, options?: { text?: string; selected?: string[]; context?: Record<string, string>; timeoutMs?: number }): Promise<SkillsEvent>;
}

/** The answer to list_skills. */
export interface SkillsEvent extends Traced {
  type: 'skills';
  stream_id: string;
  request_id: string;
  mode: 'auto' | 'all' | 'explicit' | 'off';
  skills: Array<{ name: string; description: string }>;
  skills_omitted: number;
  documents: Array<{ name: string; reason: 'selected' | 'loaded' | 'auto_activate' | 'matched' | 'all'; text: string; truncated: boolean; chars: number }>;
  loaded: string[];
  missing: string[];
  omitted: string[];
  truncated: boolean;
}

export function connect(url: string, options?: ClientOptions): Promise<Client>;

export function openaiChat(results: ToolResultEvent[], media: UserMessageEvent[]): Array<Record<string, unknown>>;
export function openaiResponses(results: ToolResultEvent[], media: UserMessageEvent[]): Array<Record<string, unknown>>;
export function anthropic(results: ToolResultEvent[], media: UserMessageEvent[]): Array<Record<string, unknown>>;
export function gemini(results: ToolResultEvent[], media: UserMessageEvent[]): Array<Record<string, unknown>>;

export class ToolbusError extends Error {}
export class TransportError extends ToolbusError {}
export class AuthenticationError extends ToolbusError {}
export class ForbiddenError extends ToolbusError {}
export class BadEventError extends ToolbusError {}
export class RejectedError extends ToolbusError {}
export class TurnTimeoutError extends ToolbusError {}
