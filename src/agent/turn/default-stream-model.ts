/** The production StreamModel: the provider's stream wrapped in streamWithRetries. */
import { streamWithRetries } from '../providers/with-retries.js';
import type { StreamModel } from './turn-types.js';

export const retryingStreamModel: StreamModel = (provider, request, options) =>
  streamWithRetries(provider, request, {
    signal: options.signal,
    ...(options.onRetry === undefined ? {} : { onRetry: options.onRetry }),
  });
