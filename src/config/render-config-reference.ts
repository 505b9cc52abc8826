/** Renders the configuration keys as docs/configuration.md (all of them) and config.example.toml (required + common). */
import type { ConfigKey } from './config-reference.js';

const GENERATED =
  'Generated from src/config/config-schema.ts and src/config/config-docs.ts by `node --import tsx scripts/config-reference.ts`; do not edit.';
const EXAMPLE_NAMES: Readonly<Record<string, string>> = { '<alias>': 'main', '<name>': 'files' };

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text: string | undefined): string => (text === undefined || text === '' ? '' : `\`${text}\``);

function sections(keys: readonly ConfigKey[]): Map<string, ConfigKey[]> {
  const bySection = new Map<string, ConfigKey[]>();
  for (const key of keys) bySection.set(key.section, [...(bySection.get(key.section) ?? []), key]);
  return bySection;
}

/** docs/configuration.md: every key, one table per section. */
export function renderReference(keys: readonly ConfigKey[]): string {
  const lines = [
    '# Configuration reference',
    '',
    `<!-- ${GENERATED} -->`,
    '',
    'TOML file (`--config FILE`, default `./config.toml`), then environment variables (they win), then flags (they win).',
    'Unknown keys and wrong types are configuration errors that name the key. Keys come in three tiers: **required**',
    '(a platform token and a model), **common** (shown in `config.example.toml`) and **advanced** (tuning knobs, only',
    'here). `<alias>` and `<name>` stand for the name of a table you write (`[models.main]`, `[mcp.servers.files]`).',
    '',
  ];
  for (const [section, sectionKeys] of sections(keys)) {
    lines.push(
      `## [${section}]`,
      '',
      '| key | type | default | environment | tier | meaning |',
      '| --- | --- | --- | --- | --- | --- |',
    );
    for (const key of sectionKeys) {
      lines.push(
        `| \`${key.key}\` | ${cell(key.type)} | ${cell(code(key.defaultToml))} | ${code(key.env)} | ${key.tier} | ${cell(key.doc)} |`,
      );
    }
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

function exampleLine(key: ConfigKey, name: string): string[] {
  const comment = [`# ${key.doc}${key.env ? ` (${key.env})` : ''}`];
  if (key.defaultToml !== undefined) return [...comment, `${name} = ${key.defaultToml}`];
  return [...comment, `# ${name} = ${key.example ?? '""'}`];
}

/** config.example.toml: the required and common keys, with their defaults (or a commented example). */
export function renderExample(keys: readonly ConfigKey[]): string {
  const lines = [
    '# Sandpiper configuration: the required and common keys. Copy to ./config.toml (or pass --config FILE) and edit.',
    '# Keys are shown with their defaults; commented-out keys have no default. Environment variables (named in',
    '# parentheses) override the file; command-line flags override both. Every key, the advanced ones included, is in',
    '# docs/configuration.md. Generated from the schema by `node --import tsx scripts/config-reference.ts`; do not edit.',
  ];
  for (const [section, sectionKeys] of sections(keys.filter((key) => key.tier !== 'advanced'))) {
    const plain = sectionKeys.filter((key) => !/<\w+>/.test(key.key));
    if (plain.length > 0) {
      lines.push('', `[${section}]`);
      for (const key of plain) lines.push(...exampleLine(key, key.key.slice(section.length + 1)));
    }
    const tabled = sectionKeys.filter((key) => /<\w+>/.test(key.key));
    if (tabled.length === 0) continue;
    const table = (tabled[0]?.key ?? '')
      .replace(/\.[^.]+$/, '')
      .replace(/<\w+>/, (placeholder) => EXAMPLE_NAMES[placeholder] ?? 'name');
    lines.push('', `# One table per ${tabled[0]?.key.match(/<(\w+)>/)?.[1] ?? 'name'}:`, `# [${table}]`);
    for (const key of tabled)
      lines.push(
        ...exampleLine(key, key.key.replace(/^.*\./, '')).map((line) => (line.startsWith('#') ? line : `# ${line}`)),
      );
  }
  return `${lines.join('\n')}\n`;
}
