/** `sandpiper notify`: sends a notification through a running gateway, minting the JWT from the configured secret. */
import { mintServiceToken } from '../gateway/http/auth.js';
import { ConfigError, GatewayError, UsageError } from '../shared/errors.js';
import { writeLine, type CliCommand } from './cli-context.js';

interface NotifyAnswer {
  results?: Array<{ channel_type: string; channel_id: string; status: string; message_id?: string }>;
  error?: string;
}

function gatewayUrl(host: string, port: number, advertise: string | undefined): string {
  if (advertise) return advertise.replace(/\/$/, '');
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host;
  return `http://${shown}:${port}`;
}

export const notifyCommand: CliCommand = {
  name: 'notify',
  usage: 'sandpiper notify (--username U | --channel-type T --channel-id ID) [--title T] [--ws-id ID] MESSAGE',
  summary: "send a notification through a running gateway's notify endpoint",
  options: {
    username: { type: 'string' },
    'channel-type': { type: 'string' },
    'channel-id': { type: 'string' },
    title: { type: 'string' },
    'ws-id': { type: 'string' },
  },
  async run(context) {
    const message = context.positionals.join(' ').trim();
    const { username, 'channel-type': channelType, 'channel-id': channelId, title, 'ws-id': wsId } = context.flags;
    if (!message) throw new UsageError(`usage: ${this.usage}`);
    const target =
      typeof username === 'string'
        ? { username }
        : typeof channelType === 'string' && typeof channelId === 'string'
          ? { channel_type: channelType, channel_id: channelId }
          : undefined;
    if (!target) throw new UsageError('give --username, or --channel-type with --channel-id');
    const config = context.loadConfig();
    if (!config.auth.jwt_secret) throw new ConfigError(['auth.jwt_secret: must be set to mint notify tokens (or SANDPIPER_JWT_SECRET)']);
    const token = await mintServiceToken({ secret: config.auth.jwt_secret, audience: config.auth.jwt_audience });
    const url = `${gatewayUrl(config.gateway.http_host, config.gateway.http_port, config.gateway.advertise_url)}/v1/api/notify`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ target, message, ...(typeof title === 'string' ? { title } : {}), ...(typeof wsId === 'string' ? { ws_id: wsId } : {}) }),
        signal: AbortSignal.timeout(60_000),
      });
    } catch {
      throw new GatewayError('INTERNAL', `cannot reach the gateway at ${url} (is sandpiper start running?)`);
    }
    const answer = (await response.json().catch(() => ({}))) as NotifyAnswer;
    if (!response.ok) throw new GatewayError('INTERNAL', `gateway answered ${response.status}: ${answer.error ?? 'no details'}`);
    const results = answer.results ?? [];
    for (const result of results) {
      writeLine(context.io.stdout, `${result.channel_type}:${result.channel_id} ${result.status}${result.message_id ? ` ${result.message_id}` : ''}`);
    }
    return results.some((result) => result.status === 'sent') ? 0 : 1;
  },
};
