/** Slash-command definitions and their registration (guild-scoped when configured), retried in the background. */
import { Routes, type REST } from 'discord.js';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { sleep } from '../../shared/time.js';

const STRING = 3;

/** The commands users see; names match the port's CommandName. */
export const COMMANDS = [
  { name: 'link', description: 'Link your Discord account to Sandpiper', type: 1 },
  { name: 'unlink', description: 'Unlink your Discord account', type: 1 },
  {
    name: 'ask',
    description: 'Start a new Sandpiper thread',
    type: 1,
    options: [
      { name: 'message', description: 'What to ask', type: STRING, required: true, max_length: 4000 },
      {
        name: 'model',
        description: 'Model for this thread (a configured alias)',
        type: STRING,
        required: false,
        autocomplete: true,
        max_length: 100,
      },
    ],
  },
  {
    name: 'model',
    description: 'Show or switch this thread’s model',
    type: 1,
    options: [
      {
        name: 'alias',
        description: 'Model to switch to (a configured alias)',
        type: STRING,
        required: false,
        autocomplete: true,
        max_length: 100,
      },
    ],
  },
  { name: 'status', description: 'Show the status of this thread’s workstream', type: 1 },
  { name: 'close', description: 'Close this thread’s workstream', type: 1 },
  { name: 'cancel', description: 'Cancel the running turn in this thread', type: 1 },
  {
    name: 'steer',
    description: 'Add guidance to the running turn in this thread (read at its next model call)',
    type: 1,
    options: [
      {
        name: 'text',
        description: 'What the agent should take into account',
        type: STRING,
        required: true,
        max_length: 2000,
      },
    ],
  },
  {
    name: 'signout',
    description: 'Forget your sign-in to an MCP server (all of them without a name)',
    type: 1,
    options: [
      { name: 'server', description: 'The MCP server, as configured', type: STRING, required: false, max_length: 100 },
    ],
  },
  {
    name: 'forget',
    description: 'Delete your own memories (all of them, or one by name)',
    type: 1,
    options: [
      {
        name: 'memory',
        description: 'Name of the memory to delete (default: all of yours)',
        type: STRING,
        required: false,
        max_length: 200,
      },
    ],
  },
  {
    name: 'grants',
    description: 'List the standing approvals (Always) that apply here, or revoke one',
    type: 1,
    options: [
      { name: 'revoke', description: 'Id of the grant to revoke', type: STRING, required: false, max_length: 64 },
    ],
  },
  {
    name: 'mcp',
    description: 'Show the MCP servers and their tools, or refresh them',
    type: 1,
    options: [
      {
        name: 'action',
        description: 'What to do',
        type: STRING,
        required: false,
        choices: [{ name: 'refresh', value: 'refresh' }],
      },
    ],
  },
] as const;

/**
 * Registers the commands; never throws. discord.js waits out 429s itself; other failures are retried with
 * backoff until `signal` aborts, so start-up never waits on this.
 */
export async function registerCommands(
  rest: REST,
  target: { applicationId: string; guildId: string | undefined },
  logger: Logger,
  signal: AbortSignal,
): Promise<boolean> {
  const route = target.guildId
    ? Routes.applicationGuildCommands(target.applicationId, target.guildId)
    : Routes.applicationCommands(target.applicationId);
  for (let attempt = 1; !signal.aborted; attempt += 1) {
    try {
      await rest.put(route, { body: COMMANDS, signal });
      logger.info({ scope: target.guildId ? 'guild' : 'global' }, 'slash commands registered');
      return true;
    } catch (error) {
      if (signal.aborted) break;
      logger.warn({ attempt, error: describeError(error) }, 'slash command registration failed; retrying');
      // Backoff; an abort ends the sleep early and the loop's signal check stops the retries.
      await sleep(Math.min(60_000, 1000 * 2 ** Math.min(attempt, 6)), signal).catch(() => undefined);
    }
  }
  return false;
}
