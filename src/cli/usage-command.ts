/** `sandpiper usage`: tokens per user, channel, model or conversation and UTC day (docs/design/usage.md). */
import { listUsage } from '../gateway/admin/admin-usage.js';
import { UsageError } from '../shared/errors.js';
import { requirePositionals, withStores } from './admin-commands.js';
import type { CliCommand } from './cli-context.js';
import { JSON_OPTION, printList } from './cli-output.js';

export const usageCommand: CliCommand = {
  name: 'usage',
  usage: 'sandpiper usage [--by user|channel|model|conversation] [--since 7d|YYYY-MM-DD] [--json]',
  summary: 'list the tokens used per user (or channel, model, conversation) and day, newest first',
  options: { ...JSON_OPTION, by: { type: 'string' }, since: { type: 'string' } },
  async run(context) {
    requirePositionals(context, 0, this.usage);
    const { by, since } = context.flags;
    if (by === true || since === true) throw new UsageError(`--by and --since take a value: ${this.usage}`);
    const lines = await withStores(context, (stores) => listUsage(stores.usage, { by, since }));
    printList(context, 'usage', lines, {
      headers: ['day', 'key', 'label', 'turns', 'input', 'output', 'cached'],
      row: (line) => [line.day, line.key, line.label, line.turns, line.input_tokens, line.output_tokens, line.cached_tokens],
      empty: 'no usage recorded in that time',
    });
    return 0;
  },
};
