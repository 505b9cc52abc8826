/** Public surface of the Slack adapter: `createSlackAdapter(config.slack, logger)`. */
import type { Logger } from '../../shared/logger.js';
import type { ChannelAdapter } from '../channel-adapter.js';
import { SlackAdapter, type SlackAdapterConfig, type SlackAdapterOptions } from './slack-adapter.js';

export type { SlackAdapterConfig, SlackAdapterOptions };

/** Builds the Slack adapter from the `slack` config section; it connects (Socket Mode) on `start`. */
export function createSlackAdapter(
  config: SlackAdapterConfig,
  logger: Logger,
  options: SlackAdapterOptions = {},
): ChannelAdapter {
  return new SlackAdapter(config, logger.child({ platform: 'slack' }), options);
}
