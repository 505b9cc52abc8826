import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildElicitationForm, parseElicitationValues, type ElicitationField } from './elicitation-form.js';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Your name', description: 'As on your passport', maxLength: 40 },
    age: { type: 'integer', title: 'Age', minimum: 0, maximum: 150, default: 30 },
    subscribe: { type: 'boolean', title: 'Subscribe', default: false },
    color: { type: 'string', title: 'Colour', enum: ['red', 'green', 'blue'] },
    hero: {
      type: 'string',
      oneOf: [
        { const: 'hero-1', title: 'Superman' },
        { const: 'hero-2', title: 'Wonder Woman' },
      ],
    },
  },
  required: ['name', 'color'],
};

function form(input: unknown = schema, max = 5): ElicitationField[] {
  const built = buildElicitationForm(input, max);
  assert.ok(built.ok, built.ok ? '' : built.error);
  return built.value;
}

describe('buildElicitationForm', () => {
  it('maps each property to a labelled text field with required flags, hints and defaults', () => {
    const fields = form();
    assert.deepEqual(
      fields.map((f) => [f.property, f.field.id, f.field.label, f.field.required]),
      [
        ['name', 'f0', 'Your name', true],
        ['age', 'f1', 'Age', false],
        ['subscribe', 'f2', 'Subscribe', false],
        ['color', 'f3', 'Colour', true],
        ['hero', 'f4', 'hero', false],
      ],
    );
    assert.equal(fields[0]?.field.placeholder, 'As on your passport');
    assert.equal(fields[0]?.field.maxLength, 40);
    assert.equal(fields[1]?.field.placeholder, 'A whole number from 0 to 150');
    assert.equal(fields[1]?.field.value, '30');
    assert.equal(fields[2]?.field.placeholder, 'yes or no');
    assert.equal(fields[2]?.field.value, 'no');
    assert.equal(fields[3]?.field.placeholder, 'One of: red, green, blue');
    assert.equal(fields[4]?.field.placeholder, 'One of: Superman, Wonder Woman');
  });

  it('keeps labels and placeholders within what platforms display', () => {
    const long = 'x'.repeat(300);
    const [field] = form({ type: 'object', properties: { note: { type: 'string', title: long, description: long } } });
    assert.equal(field?.field.label.length, 45);
    assert.equal(field?.field.placeholder.length, 100);
  });

  it('refuses a schema with more fields than the platform can show', () => {
    const properties = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`p${i}`, { type: 'string' }]));
    const built = buildElicitationForm({ type: 'object', properties }, 5);
    assert.equal(built.ok, false);
    assert.match(built.ok ? '' : built.error, /6 fields and at most 5/);
  });

  it('refuses multi-select lists and objects, naming the field', () => {
    const multi = buildElicitationForm(
      { type: 'object', properties: { tags: { type: 'array', title: 'Tags', items: { enum: ['a'] } } } },
      5,
    );
    assert.match(multi.ok ? '' : multi.error, /“Tags”/);
    assert.equal(buildElicitationForm({ type: 'object', properties: { o: { type: 'object' } } }, 5).ok, false);
  });

  it('refuses everything on a platform without forms', () => {
    assert.equal(buildElicitationForm(schema, 0).ok, false);
  });
});

describe('parseElicitationValues', () => {
  const fields = form();

  it('converts text to typed content and leaves out empty optional fields', () => {
    const parsed = parseElicitationValues(fields, {
      f0: ' Ada ',
      f1: '36',
      f2: 'Yes',
      f3: 'GREEN',
      f4: 'wonder woman',
    });
    assert.deepEqual(parsed, {
      ok: true,
      value: { name: 'Ada', age: 36, subscribe: true, color: 'green', hero: 'hero-2' },
    });
    assert.deepEqual(parseElicitationValues(fields, { f0: 'Ada', f2: 'false', f3: 'red', f4: 'hero-1' }), {
      ok: true,
      value: { name: 'Ada', subscribe: false, color: 'red', hero: 'hero-1' },
    });
  });

  it('reports every problem at once, naming the fields', () => {
    const parsed = parseElicitationValues(fields, { f0: '', f1: '3.5', f2: 'maybe', f3: 'purple' });
    assert.equal(parsed.ok, false);
    assert.deepEqual(parsed.ok ? [] : parsed.error, [
      'Your name is required.',
      'Age: enter a whole number.',
      'Subscribe: answer yes or no.',
      'Colour: choose one of red, green, blue.',
    ]);
  });

  it('checks numeric ranges and rejects non-numbers', () => {
    assert.deepEqual(parseElicitationValues(fields, { f0: 'A', f1: '200', f3: 'red' }), {
      ok: false,
      error: ['Age: enter a number from 0 to 150.'],
    });
    assert.equal(parseElicitationValues(fields, { f0: 'A', f1: '12abc', f3: 'red' }).ok, false);
    const ratio = form({ type: 'object', properties: { r: { type: 'number', minimum: 0 } } });
    assert.deepEqual(parseElicitationValues(ratio, { f0: '2.5' }), { ok: true, value: { r: 2.5 } });
    assert.deepEqual(parseElicitationValues(ratio, { f0: '-1' }), {
      ok: false,
      error: ['r: enter a number of at least 0.'],
    });
  });

  it('validates string formats and lengths', () => {
    const formats = form({
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email' },
        site: { type: 'string', format: 'uri' },
        day: { type: 'string', format: 'date' },
        code: { type: 'string', minLength: 3 },
      },
    });
    assert.deepEqual(
      parseElicitationValues(formats, { f0: 'a@b.io', f1: 'https://x.org', f2: '2024-02-29', f3: 'abc' }),
      {
        ok: true,
        value: { email: 'a@b.io', site: 'https://x.org', day: '2024-02-29', code: 'abc' },
      },
    );
    const bad = parseElicitationValues(formats, { f0: 'nope', f1: 'x', f2: '2023-02-29', f3: 'ab' });
    assert.equal(bad.ok ? 0 : bad.error.length, 4);
  });
});
