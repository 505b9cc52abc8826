/** The abort reason used at process shutdown: a turn stopped this way leaves its durable state (pending approvals) untouched. */
import { GatewayError } from '../../shared/errors.js';

export function shutdownReason(): GatewayError {
  return new GatewayError('CANCELLED', 'shutting down', { data: { shutdown: true } });
}

export function isShutdown(signal: AbortSignal): boolean {
  const reason: unknown = signal.reason;
  return signal.aborted && reason instanceof GatewayError && reason.data?.['shutdown'] === true;
}
