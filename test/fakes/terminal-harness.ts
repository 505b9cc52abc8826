/** The channel harness on the terminal adapter (`sandpiper chat`), driven through its input and output streams. */
import { TERMINAL_PLATFORM, TerminalAdapter } from '../../src/channels/terminal/terminal-adapter.js';
import type { Config } from '../../src/config/index.js';
import type { PlatformUser } from '../../src/channels/channel-adapter.js';
import type { Logger } from '../../src/shared/logger.js';
import { ChannelHarness, launchHarness, type ChannelHarnessOptions } from './channel-harness.js';
import { TerminalScreen } from './terminal-screen.js';

/** The platform user id of the person at the terminal (as `sandpiper chat` links it). */
export const TERMINAL_USER = 'local';

export class TerminalHarness extends ChannelHarness<TerminalScreen, PlatformUser> {
  protected readonly platform = TERMINAL_PLATFORM;

  static start(options: ChannelHarnessOptions = {}): Promise<TerminalHarness> {
    return launchHarness(
      () => Promise.resolve(new TerminalScreen()),
      'sandpiper-terminal-',
      (parts) => new TerminalHarness(parts, options),
    );
  }

  protected fakeFlags(): Record<string, unknown> {
    return {};
  }

  protected createAdapter(_config: Config, logger: Logger): TerminalAdapter {
    const screen = this.fake;
    return new TerminalAdapter({ input: screen.session(), output: screen.output, logger });
  }
}
