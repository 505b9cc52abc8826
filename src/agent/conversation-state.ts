/**
 * A workstream's conversation state: its history, the model its next turns use, the tools approved for it ("always"),
 * the files read this session, the expanded tool-search names, and the system prompt built from them.
 */
import { describeError } from '../shared/errors.js';
import type { WorkstreamRow } from '../storage/workstream-store.js';
import type { Message } from './messages.js';
import { WorkstreamToolSearch } from './search/workstream-tool-search.js';
import { buildSystemPrompt, collectSections, recentUserMessages } from './system-prompt.js';
import { listAllTools } from './turn/build-request.js';
import type { TurnModel } from './turn/turn-types.js';
import type { WorkstreamEnv } from './workstream-env.js';

export class ConversationState {
  readonly readFiles = new Set<string>();
  /** Expanded tool-search names live in memory; after eviction or restart they are rebuilt from the history. */
  readonly toolSearch: WorkstreamToolSearch;
  private alias: string;
  private readonly autoApprove: Set<string>;

  constructor(
    private readonly env: WorkstreamEnv,
    private readonly row: WorkstreamRow,
    readonly history: Message[],
    private readonly cwd: string,
  ) {
    this.alias = row.modelAlias;
    this.autoApprove = new Set(row.autoApproveTools);
    const { toolSources, logger } = env;
    this.toolSearch = new WorkstreamToolSearch(env.toolSearch, (signal) =>
      listAllTools({ toolSources, logger, signal }),
    );
    this.toolSearch.restoreFrom(history);
  }

  get modelAlias(): string {
    return this.alias;
  }

  /** The model of the next turn: the chosen alias, else the default one (undefined: none is configured). */
  model(): TurnModel | undefined {
    return this.env.resolveModel(this.alias) ?? this.env.resolveModel(this.env.defaultModelAlias);
  }

  /** Switches the model for the turns that start from now on; written at once. False when the alias is not configured. */
  async setModel(alias: string): Promise<boolean> {
    if (this.env.resolveModel(alias) === undefined) return false;
    await this.env.stores.workstreams.update(this.row.wsId, { modelAlias: alias });
    this.alias = alias;
    return true;
  }

  async addAutoApprove(labels: readonly string[]): Promise<void> {
    for (const label of labels) this.autoApprove.add(label);
    await this.env.stores.workstreams
      .update(this.row.wsId, { autoApproveTools: [...this.autoApprove] })
      .catch((error: unknown) => this.logError('saving the auto-approve set', error));
  }

  /** The labels approved without asking: the configured ones and those approved "always" here. */
  autoApproveLabels(): string[] {
    return [...this.env.agent.auto_approve_tools, ...this.autoApprove];
  }

  async systemPrompt(signal: AbortSignal): Promise<string> {
    const recentUserTexts = recentUserMessages(this.history, 3);
    const context = {
      wsId: this.row.wsId,
      ownerUserId: this.row.userId,
      cwd: this.cwd,
      lastUserText: recentUserTexts[0] ?? '',
      recentUserTexts,
      history: this.history,
      signal,
    };
    const sections = await collectSections(this.env.systemPromptSections, context, (error) =>
      this.logError('a system prompt section', error),
    );
    return buildSystemPrompt({
      now: new Date(this.env.now()),
      cwd: this.cwd,
      instructions: this.env.agent.instructions,
      sections,
    });
  }

  private logError(what: string, error: unknown): void {
    this.env.logger.error({ wsId: this.row.wsId, err: describeError(error) }, `${what} failed`);
  }
}
