/** The pino logger factory: JSON off a TTY, pretty on one, secrets redacted by key name. */
import { pino, type Logger } from 'pino';
import { redactSecrets, secretSerializers } from './log-redaction.js';
import { traceFields } from './telemetry.js';

export type { Logger };

export type LogFormat = 'auto' | 'json' | 'pretty';

export interface LoggerOptions {
  level?: string;
  format?: LogFormat;
  destination?: NodeJS.WritableStream;
}

/**
 * JSON to stderr is written asynchronously (a buffered pino destination on fd 2, flushed on exit by pino), so a
 * log line never blocks a request; pretty output runs in pino's worker thread. An explicit `destination` is
 * written as given (tests).
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const format = options.format ?? 'auto';
  const destination = options.destination ?? process.stderr;
  const pretty = format === 'pretty' || (format === 'auto' && (destination as { isTTY?: boolean }).isTTY === true);
  // mixin: every line logged inside a traced span carries its trace_id and span_id. Secrets are redacted by key
  // (src/shared/log-redaction.ts) in each line and in child bindings.
  const base = {
    level: options.level ?? 'info',
    formatters: { log: redactSecrets },
    serializers: secretSerializers(),
    mixin: traceFields,
  };
  if (pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { destination: 2, colorize: true } } });
  }
  if (options.destination === undefined) return pino(base, pino.destination({ dest: 2, sync: false }));
  return pino(base, destination as pino.DestinationStream);
}

/** A logger that drops everything (tests, library defaults). */
export function createSilentLogger(): Logger {
  return pino({ level: 'silent' });
}
