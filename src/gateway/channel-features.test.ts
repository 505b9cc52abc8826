import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSilentLogger } from '../shared/logger.js';
import { RecordingAdapter } from '../../test/fakes/recording-adapter.js';
import { maxFormFields, sessionStatus, whisper } from './channel-features.js';

const logger = createSilentLogger();
const target = { channelId: 'c1/t1', userId: 'u1', replyTo: 'm9' };

describe('channel features: the gateway’s fallbacks', () => {
  it('a private note is the platform’s ephemeral one where it has it', async () => {
    const adapter = new RecordingAdapter();
    await whisper(adapter, target, 'only you', AbortSignal.timeout(5000), logger);
    assert.deepEqual(adapter.whispers, [{ channelId: 'c1/t1', userId: 'u1', text: 'only you' }]);
    assert.deepEqual(adapter.texts(), [], 'nothing public');
  });

  it('without ephemeral notes it goes to the person’s DM, never into the thread', async () => {
    const adapter = new RecordingAdapter({ whisper: false });
    await whisper(adapter, target, 'only you', AbortSignal.timeout(5000), logger);
    assert.deepEqual(adapter.texts('dm-u1'), ['only you']);
    assert.deepEqual(adapter.texts('c1/t1'), []);
  });

  it('without DMs either it is said where the person wrote; a failing platform loses the note without throwing', async () => {
    const adapter = new RecordingAdapter({ whisper: false });
    const { direct: _direct, ...rest } = adapter.features;
    adapter.features = rest;
    await whisper(adapter, target, 'said here', AbortSignal.timeout(5000), logger);
    assert.deepEqual(adapter.texts('c1/t1'), ['said here']);
    await whisper(adapter, target, '   ', AbortSignal.timeout(5000), logger);
    assert.deepEqual(adapter.texts('c1/t1'), ['said here'], 'the refused post did not throw');
  });

  it('no forms means 0 fields, no sessions means no call', async () => {
    assert.equal(maxFormFields(new RecordingAdapter({ maxFormFields: 0 })), 0);
    assert.equal(maxFormFields(new RecordingAdapter()), 5);
    await sessionStatus(new RecordingAdapter(), 'c1', 'processing', undefined, AbortSignal.timeout(5000));
  });
});
