/** Typed errors. Failures of single tool calls are not errors: they are results with isError. */
export class ToolbusError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = new.target.name;
  }
}
/** The connection to toolbus failed or closed and could not be restored. */
export class TransportError extends ToolbusError {}
/** The server refused the bearer token (HTTP 401). */
export class AuthenticationError extends ToolbusError {}
/** The token may not do this (HTTP 403). */
export class ForbiddenError extends ToolbusError {}
/** toolbus could not decode the event (BAD_EVENT). */
export class BadEventError extends ToolbusError {}
/** toolbus is shutting down or overloaded (REJECTED). */
export class RejectedError extends ToolbusError {}
/** No turn_completed within the timeout. */
export class TurnTimeoutError extends ToolbusError {}

export function errorForStatus(status, body) {
  let message = body;
  try {
    const e = JSON.parse(body);
    if (e && typeof e === 'object' && e.message) message = e.message;
  } catch { /* not JSON */ }
  if (status === 401) return new AuthenticationError(message);
  if (status === 403) return new ForbiddenError(message);
  if (status === 400 || status === 413) return new BadEventError(message);
  if (status === 503) return new RejectedError(message);
  return new TransportError(`HTTP ${status}: ${message}`);
}
