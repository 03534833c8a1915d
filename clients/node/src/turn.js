import { anthropic, gemini, openaiChat, openaiResponses } from './messages.js';

/** Every event of one turn, deduplicated, in the order toolbus published them. */
export class Turn {
  constructor(streamId, turnId) {
    this.streamId = streamId;
    this.turnId = turnId;
    this.events = [];
  }

  /** The tool_results, in call order. */
  get results() { return this.events.filter((e) => e.type === 'tool_result'); }

  /** The media follow-ups (user_message). */
  get media() { return this.events.filter((e) => e.type === 'user_message'); }

  get completed() { return this.events.find((e) => e.type === 'turn_completed') ?? null; }

  get errorCount() { return this.results.filter((r) => r.is_error).length; }

  result(toolCallId) { return this.results.find((r) => r.tool_call_id === toolCallId) ?? null; }

  /** OpenAI Chat Completions: tool messages in call order, then user messages with image parts. */
  toOpenAI() { return openaiChat(this.results, this.media); }

  /** OpenAI Responses API input items. */
  toOpenAIResponses() { return openaiResponses(this.results, this.media); }

  /** Anthropic Messages: one user message, tool_result blocks first, then images. */
  toAnthropic() { return anthropic(this.results, this.media); }

  /** Gemini contents: functionResponse parts, then media parts. */
  toGemini() { return gemini(this.results, this.media); }
}
