import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Message } from '../messages.js';
import { noVisionNote, withAttachedImages } from './attached-images.js';

const signal = new AbortController().signal;

function workspace(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'sp-images-'));
  mkdirSync(path.join(dir, 'attachments'));
  writeFileSync(path.join(dir, 'attachments', 'cat.png'), Buffer.from('png bytes'));
  return dir;
}

const history = (file: string): Message[] => [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'look' },
      { type: 'image', mediaType: 'image/png', data: '', file },
    ],
  },
  { role: 'assistant', content: 'A cat.' },
];

describe('withAttachedImages', () => {
  it('loads a referenced image for a vision model and leaves the history as stored', async () => {
    const dir = workspace();
    try {
      const stored = history('attachments/cat.png');
      const sent = await withAttachedImages(stored, dir, true, signal);
      assert.deepEqual(sent[0]?.content, [
        { type: 'text', text: 'look' },
        { type: 'image', mediaType: 'image/png', data: Buffer.from('png bytes').toString('base64') },
      ]);
      assert.deepEqual(stored, history('attachments/cat.png'), 'no base64 leaks into the stored history');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives a model without vision a note instead of the image', async () => {
    const dir = workspace();
    try {
      const sent = await withAttachedImages(history('attachments/cat.png'), dir, false, signal);
      assert.deepEqual(sent[0]?.content, [
        { type: 'text', text: 'look' },
        { type: 'text', text: noVisionNote('attachments/cat.png') },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never reads through a link or outside the workspace; a missing image becomes a note', async () => {
    const dir = workspace();
    const outside = mkdtempSync(path.join(tmpdir(), 'sp-secret-'));
    try {
      writeFileSync(path.join(outside, 'secret.png'), 'secret');
      symlinkSync(path.join(outside, 'secret.png'), path.join(dir, 'attachments', 'link.png'));
      for (const file of [
        'attachments/link.png',
        '../secret.png',
        path.join(outside, 'secret.png'),
        'attachments/gone.png',
      ]) {
        const sent = await withAttachedImages(history(file), dir, true, signal);
        const parts = sent[0]?.content as { type: string; text?: string }[];
        assert.equal(parts[1]?.type, 'text', file);
        assert.match(parts[1]?.text ?? '', /no longer available/, file);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
