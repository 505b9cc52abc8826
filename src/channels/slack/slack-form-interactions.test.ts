/** Tests for form clicks and submissions: the Answer click opens the modal only while its trigger is fresh. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { InboundEvent } from '../channel-adapter.js';
import {
  onFormAction,
  onFormSubmission,
  TRIGGER_DEADLINE_MS,
  type FormInteractionDeps,
} from './slack-form-interactions.js';
import type { ReplyTarget } from './slack-interactions.js';

type FormEvent = Extract<InboundEvent, { type: 'form' }>;

function deps(clock: { now: number }, openResult = true) {
  const events: FormEvent[] = [];
  const views: { triggerId: string; view: Record<string, unknown> }[] = [];
  const replies: { target: ReplyTarget; text: string }[] = [];
  const value: FormInteractionDeps = {
    deliver: (event) => void (event.type === 'form' && events.push(event)),
    openView: async (triggerId, view) => {
      views.push({ triggerId, view });
      return openResult;
    },
    privateReply: async (target, text) => void replies.push({ target, text }),
    now: () => clock.now,
  };
  return { value, events, views, replies };
}

const user = { id: 'U1', name: 'alice' };
const target: ReplyTarget = { responseUrl: 'https://x/r', channelId: 'C1', userId: 'U1' };
const form = {
  formId: 'el_1',
  title: 'Input for srv',
  fields: [{ id: 'f0', label: 'Name', required: true, placeholder: '', value: '', multiline: false, maxLength: 50 }],
};

describe('onFormAction', () => {
  it('opens the modal with the click trigger while it is fresh, once', async () => {
    const clock = { now: 1_000 };
    const d = deps(clock);
    onFormAction({ action: 'open', formId: 'el_1', user, triggerId: 'trg1', target }, d.value);
    const event = d.events[0];
    assert.equal(event?.action, 'open');
    clock.now += TRIGGER_DEADLINE_MS - 100;
    assert.equal(await event?.respond.showForm(form), true);
    assert.equal(d.views[0]?.triggerId, 'trg1');
    assert.match(
      String(d.views[0]?.view.private_metadata),
      /https:\/\/x\/r/,
      'the submission can answer through the click response_url',
    );
    assert.equal(await event?.respond.showForm(form), false, 'a trigger opens one modal');
  });

  it('resolves false past the trigger deadline (the gateway then answers privately)', async () => {
    const clock = { now: 1_000 };
    const d = deps(clock);
    onFormAction({ action: 'open', formId: 'el_1', user, triggerId: 'trg1', target }, d.value);
    clock.now += TRIGGER_DEADLINE_MS + 1;
    assert.equal(await d.events[0]?.respond.showForm(form), false);
    assert.equal(d.views.length, 0);
    await d.events[0]?.respond.reply('That took too long');
    assert.deepEqual(d.replies, [{ target, text: 'That took too long' }]);
  });

  it('resolves false when Slack refuses the view, and after a private reply', async () => {
    const clock = { now: 0 };
    const refused = deps(clock, false);
    onFormAction({ action: 'open', formId: 'el_1', user, triggerId: 'trg1', target }, refused.value);
    assert.equal(await refused.events[0]?.respond.showForm(form), false);
    const replied = deps(clock);
    onFormAction({ action: 'open', formId: 'el_1', user, triggerId: 'trg1', target }, replied.value);
    await replied.events[0]?.respond.reply('Only the owner of this workstream can answer this.');
    assert.equal(await replied.events[0]?.respond.showForm(form), false);
  });

  it('delivers Decline and submissions acknowledged, answering privately', async () => {
    const d = deps({ now: 0 });
    onFormAction({ action: 'decline', formId: 'el_1', user, triggerId: 'trg1', target }, d.value);
    onFormSubmission(
      { formId: 'el_1', responseUrl: 'https://x/r', channelId: 'C1', values: { f0: 'Ada' } },
      user,
      d.value,
    );
    assert.deepEqual(
      d.events.map((e) => [e.action, e.formId, e.values]),
      [
        ['decline', 'el_1', {}],
        ['submit', 'el_1', { f0: 'Ada' }],
      ],
    );
    assert.equal(await d.events[1]?.respond.showForm(form), false);
    await d.events[1]?.respond.reply('Answer sent.');
    assert.deepEqual(d.replies, [{ target, text: 'Answer sent.' }]);
  });
});
