/** The gateway events of one discord.js client, handed to the adapter: messages, interactions, connection state. */
import { Events, type Client } from 'discord.js';
import type { AdapterState, InboundEvent } from '../channel-adapter.js';
import { withEventId } from '../inbound-id.js';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { toInboundMessage, type DiscordScope } from './discord-events.js';
import { answerNotReady, handleInteraction } from './discord-interactions.js';

export interface ClientListenerHost {
  logger: Logger;
  /** Known once the client is ready; messages before that are not ours to read. */
  scope(): DiscordScope | undefined;
  /** The gateway's handler is installed. */
  ready(): boolean;
  stopped(): boolean;
  deliver(event: InboundEvent): void;
  setState(state: AdapterState): void;
}

export function listenToClient(client: Client, host: ClientListenerHost): void {
  const { logger } = host;
  client.on(Events.MessageCreate, (message) => {
    const scope = host.scope();
    if (!scope) return;
    try {
      const event = toInboundMessage(message, scope);
      if (event) host.deliver(event);
    } catch (error) {
      // A throw here would surface inside discord.js's gateway handling; one odd message must not do that.
      logger.warn({ error: describeError(error) }, 'could not read an incoming message');
    }
  });
  client.on(Events.InteractionCreate, (interaction) => {
    if (host.stopped()) return;
    const scope = host.scope();
    if (!scope || !host.ready()) {
      // Never leave a click or command unanswered: Discord would show "The application did not respond".
      void answerNotReady(interaction, logger);
      return;
    }
    void handleInteraction(
      interaction,
      scope,
      (event) => host.deliver(withEventId(event, interaction.id)),
      logger,
    ).catch((error: unknown) => logger.warn({ error: describeError(error) }, 'interaction handling failed'));
  });
  client.on(Events.ShardDisconnect, () => host.setState('reconnecting'));
  client.on(Events.ShardReconnecting, () => host.setState('reconnecting'));
  client.on(Events.ShardResume, () => host.setState('connected'));
  client.on(Events.ShardReady, () => host.setState('connected'));
  client.on(Events.Error, (error) => logger.warn({ error: describeError(error) }, 'discord client error'));
}
