/** bench:discord's platform side: messages injected into the fake Discord, final answers found in its requests. */
import type { FakeDiscord, FakeUser } from '../../test/fakes/fake-discord.js';
import type { PhasePlatform } from './latency-rounds.js';

export const CHANNEL = '300000000000000001';
export const userId = (k: number): string => String(500000000000000000n + BigInt(k));

/** Messages injected into the fake; a final answer is a message post or edit carrying the whole answer. */
export function discordPlatform(fake: FakeDiscord, users: FakeUser[]): PhasePlatform {
  return {
    what: 'final edits',
    send: (k, key, index, threads) => {
      const message = fake.state.injectMessage(
        index === 0 ? CHANNEL : (threads[k] as string),
        users[k] as FakeUser,
        `bench-${key} please answer`,
        index === 0,
      );
      if (index === 0) threads[k] = message.id;
    },
    scanner: (expected, finalAt) => {
      let scanned = 0;
      return () => {
        for (; scanned < fake.requests.length; scanned++) {
          const request = fake.requests[scanned];
          const content = (request?.body as { content?: unknown } | undefined)?.content;
          const key = typeof content === 'string' ? expected.get(content) : undefined;
          if (key !== undefined && request !== undefined && /\/messages/.test(request.path))
            finalAt.set(key, request.hr);
        }
      };
    },
  };
}
