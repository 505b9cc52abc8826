/** `sandpiper notify`: sends a notification through a running gateway, minting the JWT from the configured secret. */
import { UsageError } from '../shared/errors.js';
import { writeLine, type CliCommand } from './cli-context.js';
import { callGateway } from './gateway-client.js';

interface NotifyResultLine {
  channel_type: string;
  channel_id: string;
  status: string;
  message_id?: string;
}

export const notifyCommand: CliCommand = {
  name: 'notify',
  usage:
    'sandpiper notify (--username U | --channel-type T --channel-id ID) [--title T] [--ws-id ID] [--idempotency-key KEY] MESSAGE',
  summary: "send a notification through a running gateway's notify endpoint",
  options: {
    username: { type: 'string' },
    'channel-type': { type: 'string' },
    'channel-id': { type: 'string' },
    title: { type: 'string' },
    'ws-id': { type: 'string' },
    'idempotency-key': { type: 'string' },
  },
  async run(context) {
    const message = context.positionals.join(' ').trim();
    const {
      username,
      'channel-type': channelType,
      'channel-id': channelId,
      title,
      'ws-id': wsId,
      'idempotency-key': key,
    } = context.flags;
    if (!message) throw new UsageError(`usage: ${this.usage}`);
    const target =
      typeof username === 'string'
        ? { username }
        : typeof channelType === 'string' && typeof channelId === 'string'
          ? { channel_type: channelType, channel_id: channelId }
          : undefined;
    if (!target) throw new UsageError('give --username, or --channel-type with --channel-id');
    const body = {
      target,
      message,
      ...(typeof title === 'string' ? { title } : {}),
      ...(typeof wsId === 'string' ? { ws_id: wsId } : {}),
    };
    // With a key, running the same command again answers the first result without sending twice.
    const headers = typeof key === 'string' ? { 'idempotency-key': key } : undefined;
    const answer = await callGateway(context.loadConfig(), '/v1/api/notify', {
      body,
      scopes: ['write'],
      ...(headers === undefined ? {} : { headers }),
    });
    const results = (answer['results'] ?? []) as NotifyResultLine[];
    for (const result of results) {
      writeLine(
        context.io.stdout,
        `${result.channel_type}:${result.channel_id} ${result.status}${result.message_id ? ` ${result.message_id}` : ''}`,
      );
    }
    return results.some((result) => result.status === 'sent') ? 0 : 1;
  },
};
