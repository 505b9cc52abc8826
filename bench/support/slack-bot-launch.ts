/** What the Slack benchmark tells a benchmarked bot process (JSON in argv[2]). */
export interface SlackBotLaunch {
  slackApiUrl: string;
  botToken: string;
  appToken: string;
  llmUrl: string;
  /** `stream`: chat.startStream/appendStream/stopStream; `edit`: chat.postMessage + chat.update. */
  mode: 'stream' | 'edit';
  /** Sandpiper only. */
  dataDir: string;
  databaseUrl: string;
  /** Bare app only: the file holding the LLM request body Sandpiper sent (replayed with the bare app's messages). */
  requestTemplateFile: string;
  editIntervalMs: number;
  /** How Slack delivers: Socket Mode, or signed HTTP requests to the bot's `/slack/events` (the bot reports its url). */
  delivery: 'socket' | 'http';
  signingSecret: string;
}
