import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../config/index.js';
import { ModelChoice } from './model-choice.js';

const config = loadConfig({
  cwd: '/nonexistent',
  env: {},
  flags: {
    'models.fast.provider': 'openai',
    'models.fast.model': 'gpt-fast',
    'models.smart.provider': 'anthropic',
    'models.smart.model': 'claude-smart',
    'slack.channel_models.C0001': 'smart',
  },
});

describe('ModelChoice', () => {
  const models = new ModelChoice(config);

  it('resolves aliases case-insensitively and lists the valid ones otherwise', () => {
    assert.deepEqual(models.resolve(' SMART '), { ok: true, value: 'smart' });
    assert.deepEqual(models.resolve('gpt-5'), {
      ok: false,
      error: 'Unknown model "gpt-5". Available models: `fast` (gpt-fast), `smart` (claude-smart).',
    });
  });

  it('knows the per-channel defaults and the agent default', () => {
    assert.equal(models.channelDefault('slack', 'C0001'), 'smart');
    assert.equal(models.channelDefault('discord', 'C0001'), undefined);
    assert.equal(models.defaultAlias, 'fast');
  });

  it('suggests prefix matches first, then aliases or model names containing the text', () => {
    assert.deepEqual(
      models.suggest('sm').map((choice) => choice.value),
      ['smart'],
    );
    assert.deepEqual(models.suggest('claude'), [{ label: 'smart (claude-smart)', value: 'smart' }]);
    assert.deepEqual(
      models.suggest('').map((choice) => choice.value),
      ['fast', 'smart'],
    );
  });

  it('refuses a channel default naming an unknown alias when the config loads', () => {
    assert.throws(
      () =>
        loadConfig({
          cwd: '/nonexistent',
          env: {},
          flags: {
            'models.fast.provider': 'openai',
            'models.fast.model': 'm',
            'discord.channel_models.123456789012': 'nope',
          },
        }),
      /channel_models[\s\S]*no model alias "nope"/,
    );
  });
});
