/**
 * Which model families accept images, for `models.<alias>.supports_vision` left unset. Matched against the model name
 * sent to the API (lower-cased, a vendor prefix such as `openai/` or `anthropic.` ignored). Conservative: a family is
 * listed only when every current model of it takes images; anything else defaults to no vision (a note, never an error).
 */
const VISION_FAMILIES: readonly RegExp[] = [
  /^gpt-4o/, // gpt-4o, gpt-4o-mini, chatgpt-4o
  /^chatgpt-4o/,
  /^gpt-4\.1/,
  /^gpt-4\.5/,
  /^gpt-4-turbo/,
  /^gpt-4-vision/,
  /^gpt-5/,
  /^o1(?!-mini|-preview)/,
  /^o3(?!-mini)/,
  /^o4/,
  /^claude-3/,
  /^claude-(?:opus|sonnet|haiku)-[4-9]/,
  /^claude-[4-9]/,
  /^gemini/,
  /^gemma-3/,
  /^llava/,
  /^bakllava/,
  /^qwen[\d.]*-?vl/,
  /^qwen2\.5-omni/,
  /^pixtral/,
  /^mistral-(?:small|medium)-3/,
  /^llama-?3\.2-(?:11b|90b)-vision/,
  /^llama-?4/,
  /^minicpm-v/,
  /^internvl/,
  /^grok-(?:2-)?vision/,
  /^grok-4/,
];

/** Strips `vendor/` and `vendor.` prefixes (OpenRouter, Bedrock, Ollama tags keep their suffix). */
function bareName(model: string): string {
  const lower = model.trim().toLowerCase();
  const slash = lower.lastIndexOf('/');
  const name = slash === -1 ? lower : lower.slice(slash + 1);
  return name.replace(/^(?:anthropic|openai|google|meta|mistralai|us|eu)\./, '');
}

/** Whether a model of a known vision family is named (the default of `supports_vision`). */
export function isKnownVisionModel(model: string): boolean {
  const name = bareName(model);
  return VISION_FAMILIES.some((family) => family.test(name));
}

/** The configured `supports_vision`, else the family table. */
export function resolveSupportsVision(config: { model: string; supports_vision?: boolean | undefined }): boolean {
  return config.supports_vision ?? isKnownVisionModel(config.model);
}
