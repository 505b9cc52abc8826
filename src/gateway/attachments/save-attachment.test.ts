import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { safeFileName, saveAttachment } from './save-attachment.js';

describe('saveAttachment', () => {
  it('cleans names: no folders, no leading dots, no shell characters', () => {
    assert.equal(safeFileName('../../etc/passwd'), 'passwd');
    assert.equal(safeFileName('.bashrc'), 'bashrc');
    assert.equal(safeFileName('a$(rm -rf).txt'), 'a__rm -rf_.txt');
    assert.equal(safeFileName('Résumé 2026.pdf'), 'Résumé 2026.pdf');
    assert.equal(safeFileName(''), 'file');
    assert.equal(safeFileName(`${'x'.repeat(300)}.pdf`).length, 100);
    assert.ok(safeFileName(`${'x'.repeat(300)}.pdf`).endsWith('.pdf'));
  });

  it('never overwrites: a second file of the same name gets a number', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sp-save-'));
    try {
      assert.equal(await saveAttachment(dir, 'notes.txt', Buffer.from('one')), 'attachments/notes.txt');
      assert.equal(await saveAttachment(dir, 'notes.txt', Buffer.from('two')), 'attachments/notes-1.txt');
      assert.equal(readFileSync(path.join(dir, 'attachments/notes.txt'), 'utf8'), 'one');
      assert.equal(readFileSync(path.join(dir, 'attachments/notes-1.txt'), 'utf8'), 'two');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an attachments folder that a tool replaced with a link, and a planted file link', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sp-save-'));
    const outside = mkdtempSync(path.join(tmpdir(), 'sp-outside-'));
    try {
      symlinkSync(outside, path.join(dir, 'attachments'));
      await assert.rejects(saveAttachment(dir, 'x.txt', Buffer.from('x')), /not a folder/);
      rmSync(path.join(dir, 'attachments'));
      mkdirSync(path.join(dir, 'attachments'));
      symlinkSync(path.join(outside, 'target.txt'), path.join(dir, 'attachments', 'x.txt'));
      assert.equal(await saveAttachment(dir, 'x.txt', Buffer.from('x')), 'attachments/x-1.txt');
      assert.equal(existsSync(path.join(outside, 'target.txt')), false, 'nothing written through the link');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
