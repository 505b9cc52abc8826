import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssistantMessage } from '../messages.js';
import { anyOf, maxStepsNote, noToolCalls, stepCountIs } from './stop-conditions.js';

const answer: AssistantMessage = { role: 'assistant', content: 'done' };
const withCalls: AssistantMessage = {
  role: 'assistant',
  content: '',
  toolCalls: [{ id: 'c1', name: 'bash', arguments: '{}' }],
};

describe('stop conditions', () => {
  it('noToolCalls stops on an answer without calls, including an empty call list', () => {
    assert.equal(noToolCalls({ steps: 0, last: answer }), true);
    assert.equal(noToolCalls({ steps: 0, last: { ...answer, toolCalls: [] } }), true);
    assert.equal(noToolCalls({ steps: 0, last: withCalls }), false);
  });

  it('stepCountIs stops once the step budget is used up, not before', () => {
    const limit = stepCountIs(3);
    assert.equal(limit({ steps: 2, last: withCalls }), false);
    assert.equal(limit({ steps: 3, last: withCalls }), true);
    assert.equal(limit({ steps: 4, last: withCalls }), true);
  });

  it('anyOf stops when any condition does, and never with no conditions', () => {
    const either = anyOf(noToolCalls, stepCountIs(2));
    assert.equal(either({ steps: 0, last: withCalls }), false);
    assert.equal(either({ steps: 0, last: answer }), true);
    assert.equal(either({ steps: 2, last: withCalls }), true);
    assert.equal(anyOf()({ steps: 99, last: answer }), false);
  });

  it('maxStepsNote names the limit and the setting', () => {
    const note = maxStepsNote(7);
    assert.match(note, /7 tool steps/);
    assert.match(note, /agent\.max_steps/);
  });
});
