export { Client, connect } from './client.js';
export { Turn } from './turn.js';
export { anthropic, gemini, openaiChat, openaiResponses } from './messages.js';
export {
  AuthenticationError, BadEventError, ForbiddenError, RejectedError, ToolbusError, TransportError, TurnTimeoutError,
} from './errors.js';
