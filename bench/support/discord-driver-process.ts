/**
 * `bench:discord --apart`: the fake Discord and the driver of the phases in their own process, so neither the fake LLM
 * nor the orchestrator shares its event loop. `phase` sends the messages (all at once, or one after another), waits
 * for every final answer and replies with when each was sent and answered (CLOCK_MONOTONIC ms, mono-clock.ts).
 */
import { FakeDiscord, type FakeUser } from '../../test/fakes/fake-discord.js';
import { discordPlatform, userId } from './discord-platform.js';
import { drivePhase } from './latency-rounds.js';
import { monoEntries } from './mono-clock.js';

interface PhaseCommand {
  type: 'phase';
  users: number;
  index: 0 | 1;
  sequential: boolean;
  tag: string;
}

const fake = await FakeDiscord.start();
const users: FakeUser[] = [];
const threads = new Map<string, string[]>();

async function runPhase(command: PhaseCommand): Promise<void> {
  for (let k = users.length; k < command.users; k++) users.push(fake.user(userId(k), `bench${k}`));
  const tagThreads = threads.get(command.tag) ?? [];
  threads.set(command.tag, tagThreads);
  const driven = await drivePhase(
    discordPlatform(fake, users),
    command.users,
    tagThreads,
    command.index,
    command.sequential,
    command.tag,
  );
  process.send?.({ type: 'phase-done', sentAt: monoEntries(driven.sentAt), finalAt: monoEntries(driven.finalAt) });
}

process.on('disconnect', () => process.exit(0));
process.on('message', (message: PhaseCommand | { type: 'stop' }) => {
  if (message.type === 'phase')
    void runPhase(message).catch((error: unknown) => process.stderr.write(`driver: ${String(error)}\n`));
  else void fake.close().finally(() => process.exit(0));
});
process.send?.({ type: 'ready', apiUrl: fake.apiUrl, token: fake.token });
