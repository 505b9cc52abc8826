/** The process environment: the one place that reads `process.env`, and the scrubbing applied before it reaches a child process. */

export type Environment = Readonly<Record<string, string | undefined>>;

const ALWAYS_KEEP = new Set([
  'PATH',
  'HOME',
  'USER',
  'SHELL',
  'LANG',
  'TERM',
  'TMPDIR',
  'TMP',
  'TEMP',
  'EDITOR',
  'VISUAL',
  'COLORTERM',
  'COLUMNS',
  'LINES',
  'PWD',
  'OLDPWD',
  'HOSTNAME',
  'LOGNAME',
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'SSH_AUTH_SOCK',
  'GPG_AGENT_INFO',
  'SHLVL',
  'MANWIDTH',
  'MAN_KEEP_FORMATTING',
  'LESS',
  'LESSOPEN',
  'LESSCLOSE',
  'LESSPIPE',
  'LESSCHARSET',
]);

const SECRET_SUFFIXES = ['_KEY', '_SECRET', '_TOKEN', '_PASSWORD', '_CREDENTIAL', '_CREDENTIALS'];

const SECRET_NAMES = new Set([
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'TAVILY_API_KEY',
  'AWS_SECRET_ACCESS_KEY',
  'AZURE_CLIENT_SECRET',
  'GCP_SERVICE_ACCOUNT_KEY',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'DATABASE_URL',
  'RIPGREP_CONFIG_PATH',
  'GIT_CONFIG',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'SANDPIPER_JWT_SECRET',
  'SANDPIPER_DISCORD_TOKEN',
  'SANDPIPER_SLACK_BOT_TOKEN',
  'SANDPIPER_SLACK_APP_TOKEN',
  'SANDPIPER_SLACK_SIGNING_SECRET',
  'SANDPIPER_DATABASE_URL',
  'SANDPIPER_TEST_PG_URL',
]);

/** The live process environment. */
export function processEnvironment(): Environment {
  return process.env;
}

/** Whether a variable of the parent environment is withheld from child processes (tools, MCP servers). */
export function isSecretVariable(name: string): boolean {
  if (ALWAYS_KEEP.has(name) || name.startsWith('LC_') || name.startsWith('XDG_')) return false;
  const upper = name.toUpperCase();
  if (SECRET_NAMES.has(upper)) return true;
  return SECRET_SUFFIXES.some((suffix) => upper.endsWith(suffix));
}

/** The parent environment without secrets, with `extra` on top (configuration may re-add a secret on purpose). */
export function scrubbedEnvironment(
  parent: Environment = processEnvironment(),
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value !== undefined && !isSecretVariable(name)) env[name] = value;
  }
  return { ...env, ...extra };
}
