/** Contract suite for ConversationStore: faithful round trip, repair of interrupted turns, search, replace. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Message } from '../../src/agent/messages.js';
import { INTERRUPTED_TOOL_RESULT } from '../../src/shared/interruption.js';
import { useStores, type StoresFactory } from './stores-factory.js';

const FULL_TURN: Message[] = [
  { role: 'user', content: 'Please list the files' },
  {
    role: 'assistant',
    content: 'Let me look.',
    toolCalls: [
      { id: 'call_1', name: 'bash', arguments: '{"command":"ls"}' },
      { id: 'call_2', name: 'read_file', arguments: 'not json {' },
    ],
    reasoning: 'The user wants a listing.',
    providerData: [{ type: 'thinking', thinking: 'hm', signature: 'sig==' }],
  },
  { role: 'tool', toolCallId: 'call_1', name: 'bash', content: 'a.txt\nb.txt' },
  { role: 'tool', toolCallId: 'call_2', name: 'read_file', content: 'Error: bad arguments', isError: true },
  { role: 'assistant', content: 'There are two files.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
    ],
  },
  { role: 'assistant', content: '' },
  {
    role: 'tool',
    toolCallId: 'call_x',
    name: 'read_file',
    content: [{ type: 'text', text: 'orphan' }],
    isError: false,
  },
];

export function conversationStoreContract(label: string, factory: StoresFactory): void {
  describe(`ConversationStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('loads exactly the messages that were appended, in order', async () => {
      for (const message of FULL_TURN) await stores().conversations.append('ws-rt', message);
      assert.deepEqual(await stores().conversations.load('ws-rt'), FULL_TURN);
      assert.equal(await stores().conversations.count('ws-rt'), FULL_TURN.length);
      assert.deepEqual(await stores().conversations.load('ws-empty'), []);
    });

    it('never stores system messages', async () => {
      await stores().conversations.append('ws-sys', { role: 'system', content: 'You are helpful.' });
      await stores().conversations.append('ws-sys', { role: 'user', content: 'hi' });
      assert.deepEqual(await stores().conversations.load('ws-sys'), [{ role: 'user', content: 'hi' }]);
    });

    it('keeps an interrupted assistant message and answers its unfinished calls as interrupted', async () => {
      const kept: Message[] = [
        { role: 'user', content: 'run two things' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'again' },
      ];
      for (const message of kept) await stores().conversations.append('ws-cut', message);
      const calls: Message = {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'c1', name: 'bash', arguments: '{}' },
          { id: 'c2', name: 'bash', arguments: '{}' },
        ],
      };
      await stores().conversations.append('ws-cut', calls);
      await stores().conversations.append('ws-cut', { role: 'tool', toolCallId: 'c1', name: 'bash', content: 'done' });
      assert.deepEqual(await stores().conversations.load('ws-cut'), [
        ...kept,
        calls,
        { role: 'tool', toolCallId: 'c1', name: 'bash', content: 'done' },
        { role: 'tool', toolCallId: 'c2', name: 'bash', content: INTERRUPTED_TOOL_RESULT, isError: true },
      ]);
    });

    it('keeps later turns when an earlier turn was interrupted, with the lost call answered in place', async () => {
      await stores().conversations.append('ws-mid', { role: 'user', content: 'first' });
      const lost: Message = {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'lost', name: 'bash', arguments: '{}' }],
      };
      await stores().conversations.append('ws-mid', lost);
      const later: Message[] = [
        { role: 'user', content: 'second' },
        { role: 'assistant', content: 'answer to second' },
      ];
      for (const message of later) await stores().conversations.append('ws-mid', message);
      assert.deepEqual(await stores().conversations.load('ws-mid'), [
        { role: 'user', content: 'first' },
        lost,
        { role: 'tool', toolCallId: 'lost', name: 'bash', content: INTERRUPTED_TOOL_RESULT, isError: true },
        ...later,
      ]);
    });

    it('finds messages by full-text search, best match first, optionally in one workstream', async () => {
      await stores().conversations.append('ws-s1', { role: 'user', content: 'the kubernetes deployment is failing' });
      await stores().conversations.append('ws-s1', {
        role: 'assistant',
        content: 'kubernetes kubernetes pods restart',
      });
      await stores().conversations.append('ws-s2', { role: 'user', content: 'kubernetes questions about helm' });
      await stores().conversations.append('ws-s2', { role: 'user', content: 'nothing relevant here' });
      const hits = await stores().conversations.search('kubernetes');
      assert.equal(hits.length, 3);
      assert.equal(hits[0]?.content, 'kubernetes kubernetes pods restart');
      assert.equal(hits[0]?.wsId, 'ws-s1');
      assert.equal(hits[0]?.role, 'assistant');
      assert.match(hits[0]?.timestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      const scoped = await stores().conversations.search('kubernetes', { wsId: 'ws-s2' });
      assert.deepEqual(
        scoped.map((hit) => hit.content),
        ['kubernetes questions about helm'],
      );
      const both = await stores().conversations.search('kubernetes helm');
      assert.deepEqual(
        both.map((hit) => hit.content),
        ['kubernetes questions about helm'],
      );
      assert.equal((await stores().conversations.search('kubernetes', { limit: 1 })).length, 1);
    });

    it("limits search to one owner's workstreams and names the tool of a tool result", async () => {
      await stores().workstreams.create({ wsId: 'ws-own-a', userId: 'owner-a', name: '', modelAlias: '' });
      await stores().workstreams.create({ wsId: 'ws-own-b', userId: 'owner-b', name: '', modelAlias: '' });
      await stores().conversations.append('ws-own-a', { role: 'user', content: 'narwhal migration plan' });
      await stores().conversations.append('ws-own-a', {
        role: 'tool',
        toolCallId: 'c1',
        name: 'bash',
        content: 'narwhal done',
      });
      await stores().conversations.append('ws-own-b', { role: 'user', content: 'narwhal secret of b' });
      const mine = await stores().conversations.search('narwhal', { userId: 'owner-a' });
      assert.deepEqual(
        mine.map((hit) => hit.wsId),
        ['ws-own-a', 'ws-own-a'],
      );
      assert.deepEqual(mine.map((hit) => hit.toolName).sort(), ['', 'bash']);
      assert.deepEqual(
        (await stores().conversations.search('narwhal', { userId: 'owner-b' })).map((hit) => hit.content),
        ['narwhal secret of b'],
      );
      assert.deepEqual(await stores().conversations.search('narwhal', { userId: 'nobody' }), []);
      await stores().conversations.append('ws-own-a', {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c2', name: 'bash', arguments: '{"command":"ls /srv/okapi"}' }],
      });
      const call = await stores().conversations.search('okapi', { userId: 'owner-a' });
      assert.deepEqual(
        call.map((hit) => [hit.role, hit.toolCalls]),
        [['assistant', [{ name: 'bash', arguments: '{"command":"ls /srv/okapi"}' }]]],
      );
    });

    it('searches the text of content parts', async () => {
      await stores().conversations.append('ws-parts', {
        role: 'user',
        content: [
          { type: 'text', text: 'zebra crossing photo' },
          { type: 'image', mediaType: 'image/png', data: 'AAAA' },
        ],
      });
      const hits = await stores().conversations.search('zebra');
      assert.equal(hits.length, 1);
      assert.equal(hits[0]?.wsId, 'ws-parts');
    });

    it('treats search syntax characters as plain text and never fails on them', async () => {
      await stores().conversations.append('ws-syn', { role: 'user', content: 'quokka AND wombat' });
      const queries = [
        '"',
        'quokka"',
        '(quokka',
        'quokka*',
        'NEAR(',
        'quokka OR',
        '-quokka',
        ':',
        '^',
        'a:b',
        "o'brien",
        '   ',
        '',
      ];
      // None of them may throw; and stray syntax around a word still finds that word.
      for (const query of queries) await stores().conversations.search(query);
      for (const query of ['quokka"', '(quokka', 'quokka*']) {
        assert.equal((await stores().conversations.search(query)).length, 1, `query ${JSON.stringify(query)}`);
      }
      for (const query of ['"', ':', '^', '']) {
        assert.equal((await stores().conversations.search(query)).length, 0, `query ${JSON.stringify(query)}`);
      }
      assert.equal((await stores().conversations.search('"quokka"')).length, 1);
      assert.equal((await stores().conversations.search('quokka -wombat')).length, 1);
      assert.deepEqual(await stores().conversations.search('   '), []);
    });

    it('replaces the whole history and keeps search in sync', async () => {
      await stores().conversations.append('ws-rep', { role: 'user', content: 'platypus original message' });
      await stores().conversations.append('ws-rep', { role: 'assistant', content: 'platypus reply' });
      const compacted: Message[] = [
        { role: 'user', content: 'Summary: we talked about echidnas' },
        { role: 'assistant', content: 'Understood.' },
      ];
      await stores().conversations.replace('ws-rep', compacted);
      assert.deepEqual(await stores().conversations.load('ws-rep'), compacted);
      assert.equal(await stores().conversations.count('ws-rep'), 2);
      assert.deepEqual(await stores().conversations.search('platypus'), []);
      assert.equal((await stores().conversations.search('echidnas')).length, 1);
    });

    it('replaces in call order with the appends handed in around it, and keeps every character of a long history', async () => {
      const first = stores().conversations.append('ws-order', { role: 'user', content: 'before the replace' });
      // More rows than one INSERT holds, with quotes, newlines and characters outside ASCII.
      const long: Message[] = Array.from({ length: 120 }, (_, index) => ({
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: `line ${index}: it's "quoted"\n\tand ünïcode ✓ ${'x'.repeat(index)}`,
      }));
      const replaced = stores().conversations.replace('ws-order', long);
      const after = stores().conversations.append('ws-order', { role: 'user', content: 'after the replace' });
      await Promise.all([first, replaced, after]);
      assert.deepEqual(await stores().conversations.load('ws-order'), [
        ...long,
        { role: 'user', content: 'after the replace' },
      ]);
    });
  });
}
