/** Contract cases of the inbound limits (length cap, per-user rate), on a gateway of their own with the default rate. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LIMIT_FLAGS, personId, type ContractDriver, type StartDriver } from './driver.js';

/** Inbound limits on a gateway of their own (the rate is per user and window, so it would starve the main suite). */
export function limitsContract<U>(platform: string, start: StartDriver<U>): void {
  describe(`ChannelAdapter contract: ${platform} inbound limits`, () => {
    let d: ContractDriver<U>;
    let flooder: U;
    before(async () => {
      d = await start(LIMIT_FLAGS);
      flooder = await d.linkedUser(personId(platform, 'U0FLOODER', '400000000000000093'), 'flooder');
    });
    after(async () => {
      await d.close();
    });

    it('refuses a message over the length cap with a private notice, and sends nothing of it', async () => {
      d.llm.enqueue({ text: 'Short one answered.' });
      const threadId = await d.mention(flooder, 'short');
      await d.waitFor(() => d.texts(threadId).includes('Short one answered.'), 'first answer');
      const long = d.say(flooder, threadId, 'x'.repeat(501));
      await d.waitFor(
        () =>
          d
            .notices(flooder)
            .some((text) => /Message too long \(501 chars\)\. Please keep messages under 500 characters\./.test(text)),
        'length notice',
      );
      await d.waitFor(() => d.reactions(long).includes('refused'), 'refused reaction');
      assert.equal(d.llm.requests.length, 1, 'the long message started no turn');
    });

    it('11 messages in 60 s: 10 turns and exactly one notice; a 12th is refused without a second notice', async () => {
      // The length test above used one slot (its refused message did not).
      d.llm.enqueue(...Array.from({ length: 9 }, (_, i) => ({ text: `Answer ${i + 2}.` })));
      const before = d.llm.requests.length;
      const threadId = await d.mention(flooder, 'message 2');
      await d.waitFor(() => d.texts(threadId).includes('Answer 2.'), 'answer 2');
      const ids = Array.from({ length: 9 }, (_, i) => d.say(flooder, threadId, `message ${i + 3}`));
      await d.waitFor(
        () => d.notices(flooder).some((text) => /sending messages too fast\. Limit is 10 per 60 seconds\./.test(text)),
        'rate notice',
      );
      await d.waitFor(() => d.texts(threadId).includes('Answer 10.'), 'every admitted message answered', 30_000);
      assert.equal(d.llm.requests.length - before, 9, 'nine more turns (ten in all)');
      await d.waitFor(() => d.reactions(ids.at(-1) ?? '').includes('refused'), 'the 11th is marked refused');
      const twelfth = d.say(flooder, threadId, 'message 12');
      await d.waitFor(() => d.reactions(twelfth).includes('refused'), 'the 12th is marked refused');
      assert.equal(d.notices(flooder).filter((text) => /too fast/.test(text)).length, 1, 'exactly one rate notice');
      assert.ok(
        !JSON.stringify(d.llm.requests.map((request) => request.body)).includes('message 11'),
        'the refused message was not sent',
      );
    });
  });
}
