import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSilentLogger } from '../../shared/logger.js';
import { waitFor } from '../../../test/helpers/wait-for.js';
import { ConsoleFeed, type FeedEvent } from './console-feed.js';

describe('the console feed', () => {
  it('hands listeners only the sources that changed, a late listener the latest answers, and survives a failing source', async () => {
    const controller = new AbortController();
    let conversations: unknown[] = [];
    let reads = 0;
    const feed = new ConsoleFeed({
      logger: createSilentLogger(),
      signal: controller.signal,
      intervalMs: 5,
      sources: {
        conversations: async () => {
          reads += 1;
          return conversations;
        },
        broken: async () => {
          throw new Error('database is down');
        },
      },
    });
    const first: FeedEvent[] = [];
    const stopFirst = feed.subscribe((event) => first.push(event));
    await waitFor(() => first.length === 1, 'the first answer');
    const readsBefore = reads;
    await waitFor(() => reads >= readsBefore + 3, 'more reads');
    assert.equal(first.length, 1, 'an unchanged source is not sent again');
    conversations = [{ ws_id: 'w1' }];
    await waitFor(() => first.length === 2, 'the change');
    assert.deepEqual(JSON.parse(first[1]?.data ?? ''), [{ ws_id: 'w1' }]);
    const late: FeedEvent[] = [];
    const stopLate = feed.subscribe((event) => late.push(event));
    assert.deepEqual(
      late.map((event) => event.name),
      ['conversations'],
      'a late listener gets the latest answer at once',
    );
    stopFirst();
    stopLate();
    controller.abort();
  });
});
