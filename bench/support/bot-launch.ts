/** What the orchestrator tells a benchmarked bot process (JSON in argv[2]). */
export interface BotLaunch {
  discordApiUrl: string;
  discordToken: string;
  llmUrl: string;
  globalRequestsPerSecond: number;
  /** Sandpiper only. */
  dataDir: string;
  databaseUrl: string;
  /** Bare bot only: the file holding the LLM request body Sandpiper sent (replayed with the bare bot's messages). */
  requestTemplateFile: string;
  editIntervalMs: number;
  /** Bare bot only (bench:catch-up): on start, read this channel's last day of history and answer each message. */
  catchUpChannel?: string;
}
