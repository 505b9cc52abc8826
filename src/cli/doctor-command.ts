/** `sandpiper doctor`: checks the configuration, database, models, platforms, MCP servers and sandbox; exit 1 on a failure. */
import { ConfigError, GatewayError, UsageError } from '../shared/errors.js';
import { fail, formatCheck, type CheckResult } from '../doctor/doctor-check.js';
import { writeLine, type CliCommand } from './cli-context.js';
import { JSON_OPTION, printJson, wantsJson } from './cli-output.js';

export const doctorCommand: CliCommand = {
  name: 'doctor',
  usage: 'sandpiper doctor [--config FILE] [--json]',
  summary: 'check the configuration, database, model endpoints, Discord/Slack tokens, MCP servers and sandbox',
  options: JSON_OPTION,
  async run(context) {
    if (context.positionals.length > 0) throw new UsageError(`usage: ${this.usage}`);
    let results: CheckResult[];
    try {
      const config = context.loadConfig();
      const { runDoctor } = await import('../main-doctor.js');
      results = await runDoctor(config);
    } catch (error) {
      if (!(error instanceof ConfigError) && !(error instanceof GatewayError && error.code === 'CONFIG_INVALID'))
        throw error;
      const issues = error instanceof ConfigError ? error.issues : [error.message];
      results = [
        fail(
          'config',
          issues.slice(0, 3).join('; '),
          'fix the key named above in the config file or its environment variable',
        ),
      ];
    }
    if (wantsJson(context)) {
      printJson(context, { ok: results.every((result) => result.status !== 'fail'), checks: results });
    } else {
      const width = Math.max(...results.map((result) => result.name.length));
      for (const result of results) writeLine(context.io.stdout, formatCheck(result, width));
    }
    return results.some((result) => result.status === 'fail') ? 1 : 0;
  },
};
