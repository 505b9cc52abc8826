import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { classifyAttachment } from './attachment-kind.js';

describe('classifyAttachment', () => {
  it('sends PNG, JPEG, GIF and WebP to vision and saves everything else as a file', () => {
    assert.deepEqual(classifyAttachment('a.png', 'image/png', 'image/png'), {
      ok: true,
      value: { kind: 'image', mediaType: 'image/png' },
    });
    assert.deepEqual(classifyAttachment('a.jpg', 'image/jpeg', 'application/octet-stream'), {
      ok: true,
      value: { kind: 'image', mediaType: 'image/jpeg' },
    });
    assert.deepEqual(classifyAttachment('a.svg', 'image/svg+xml', 'image/svg+xml'), {
      ok: true,
      value: { kind: 'file', mediaType: 'image/svg+xml' },
    });
    assert.deepEqual(classifyAttachment('r.pdf', 'application/pdf', 'application/pdf'), {
      ok: true,
      value: { kind: 'file', mediaType: 'application/pdf' },
    });
    assert.deepEqual(classifyAttachment('blob', undefined, ''), {
      ok: true,
      value: { kind: 'file', mediaType: 'application/octet-stream' },
    });
  });

  it('refuses a web page where a file was announced, but keeps an uploaded .html file', () => {
    const page = classifyAttachment('r.pdf', 'application/pdf', 'text/html');
    assert.equal(page.ok, false);
    assert.match(page.ok ? '' : page.error, /web page instead of the file/);
    assert.equal(classifyAttachment('index.html', 'text/html', 'text/html').ok, true);
  });

  it('refuses an announced image the host serves as something else', () => {
    const result = classifyAttachment('a.png', 'image/png', 'application/json');
    assert.deepEqual(result, { ok: false, error: 'the file host sent application/json, not the announced image/png' });
  });
});
