/**
 * Which model a thread uses: the configured aliases, the per-channel defaults (`<platform>.channel_models`), what a
 * person typed (`/ask model:`, `--model`, `/model`) and the suggestions offered while they type.
 */
import type { Config } from '../config/index.js';
import type { Result } from '../shared/result.js';

/** Discord shows at most 25 autocomplete choices, each label at most 100 characters. */
const MAX_SUGGESTIONS = 25;
const MAX_LABEL = 100;

export class ModelChoice {
  private readonly models: Config['models'];
  private readonly channelModels: Readonly<Record<string, Readonly<Record<string, string>>>>;
  private readonly fallback: string;

  constructor(config: Pick<Config, 'models' | 'agent' | 'discord' | 'slack'>) {
    this.models = config.models;
    this.channelModels = { discord: config.discord.channel_models, slack: config.slack.channel_models };
    this.fallback = config.agent.default_model ?? Object.keys(config.models)[0] ?? '';
  }

  /** The configured aliases, in config order. */
  aliases(): string[] {
    return Object.keys(this.models);
  }

  /** The alias a new thread in `channelId` starts with when nobody picked one (undefined: the agent's default). */
  channelDefault(platform: string, channelId: string): string | undefined {
    return this.channelModels[platform]?.[channelId];
  }

  /** The alias shown for a workstream whose row names none (the agent's default). */
  get defaultAlias(): string {
    return this.fallback;
  }

  /** A typed alias (case-insensitive, trimmed) → the configured alias, or the message listing the valid ones. */
  resolve(typed: string): Result<string, string> {
    const wanted = typed.trim().toLowerCase();
    const alias = this.aliases().find((candidate) => candidate.toLowerCase() === wanted);
    if (alias !== undefined) return { ok: true, value: alias };
    return { ok: false, error: `Unknown model "${typed.trim().slice(0, 60)}". ${this.listing()}` };
  }

  /** "Available models: `a` (model-a), `b` (model-b)." */
  listing(): string {
    const names = this.aliases().map((alias) => `\`${alias}\` (${this.models[alias]?.model ?? alias})`);
    return names.length === 0 ? 'No models are configured.' : `Available models: ${names.join(', ')}.`;
  }

  /** Aliases matching what the user typed so far (prefix matches first), as autocomplete choices. */
  suggest(query: string): { label: string; value: string }[] {
    const wanted = query.trim().toLowerCase();
    const matches = this.aliases().filter(
      (alias) =>
        alias.toLowerCase().includes(wanted) || (this.models[alias]?.model ?? '').toLowerCase().includes(wanted),
    );
    matches.sort((a, b) => Number(!a.toLowerCase().startsWith(wanted)) - Number(!b.toLowerCase().startsWith(wanted)));
    return matches
      .slice(0, MAX_SUGGESTIONS)
      .map((alias) => ({ label: `${alias} (${this.models[alias]?.model ?? ''})`.slice(0, MAX_LABEL), value: alias }));
  }
}
