import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isKnownVisionModel, resolveSupportsVision } from './vision-models.js';

describe('supports_vision defaults', () => {
  it('knows the vision families of every vendor', () => {
    for (const model of [
      'gpt-4o',
      'gpt-4o-mini',
      'gpt-4.1-mini',
      'gpt-5',
      'o3',
      'o4-mini',
      'claude-3-5-sonnet-latest',
      'claude-sonnet-4-5',
      'claude-opus-4-1-20250805',
      'gemini-2.5-pro',
      'llava:13b',
      'qwen2.5-vl-7b-instruct',
      'Qwen/Qwen2-VL-7B-Instruct',
      'openai/gpt-4.1',
      'anthropic.claude-3-haiku-20240307-v1:0',
    ]) {
      assert.equal(isKnownVisionModel(model), true, model);
    }
  });

  it('defaults to no vision for text-only and unknown models', () => {
    for (const model of [
      'gpt-3.5-turbo',
      'gpt-4',
      'o3-mini',
      'o1-mini',
      'claude-2.1',
      'llama-3.1-8b-instruct',
      'qwen2.5-coder',
      'fake-model',
      'mistral-7b',
    ]) {
      assert.equal(isKnownVisionModel(model), false, model);
    }
  });

  it('lets models.<alias>.supports_vision override the table both ways', () => {
    assert.equal(resolveSupportsVision({ model: 'gpt-4o', supports_vision: false }), false);
    assert.equal(resolveSupportsVision({ model: 'my-local-vlm', supports_vision: true }), true);
    assert.equal(resolveSupportsVision({ model: 'gpt-4o' }), true);
  });
});
