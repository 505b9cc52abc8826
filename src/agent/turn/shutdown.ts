/** The abort reason used at process shutdown: a turn stopped this way leaves its durable state (pending approvals) untouched. */
import { GatewayError } from '../../shared/errors.js';

export function shutdownReason(): GatewayError {
  return new GatewayError('CANCELLED', 'shutting down', { data: { shutdown: true } });
}

export function isShutdown(signal: AbortSignal): boolean {
  const reason: unknown = signal.reason;
  return signal.aborted && reason instanceof GatewayError && reason.data?.['shutdown'] === true;
}

/** The turn was cut short by a shutdown: its journal row stays for the next start to settle (ADR 0013, 0034). */
export function leftForRestart(signal: AbortSignal, outcome: { reason: string }): boolean {
  return isShutdown(signal) && outcome.reason !== 'done';
}
