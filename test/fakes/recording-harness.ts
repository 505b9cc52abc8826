/**
 * The channel harness on the recording adapter: the real gateway and agent, the fake LLM and a fresh database, with
 * the recording adapter as the platform (its records survive a restart, as a platform's messages would) and a file
 * host standing in for the platform's CDN.
 */
import type { Config } from '../../src/config/index.js';
import { ChannelHarness, launchHarness, type ChannelHarnessOptions } from './channel-harness.js';
import { ForeignFileHost } from './fake-file-host.js';
import { person, RecordingAdapter } from './recording-adapter.js';
import type { PlatformUser } from '../../src/channels/channel-adapter.js';

export const RECORDING_PLATFORM = 'recording';
/** The channel mentions are written in. */
export const RECORDING_CHANNEL = 'C1';

/** The recording "platform": its adapter (one for the harness's life) and the host its files are served from. */
export class RecordingPlatform {
  readonly adapter: RecordingAdapter;

  private constructor(readonly files: ForeignFileHost) {
    this.adapter = new RecordingAdapter({
      platform: RECORDING_PLATFORM,
      attachmentAccess: { origins: [files.origin], headers: {} },
    });
  }

  static async start(): Promise<RecordingPlatform> {
    return new RecordingPlatform(await ForeignFileHost.start());
  }

  user(id: string, name: string): PlatformUser {
    return person(id, name);
  }

  close(): Promise<void> {
    return this.files.close();
  }
}

export class RecordingHarness extends ChannelHarness<RecordingPlatform, PlatformUser> {
  protected readonly platform = RECORDING_PLATFORM;

  static start(options: ChannelHarnessOptions = {}): Promise<RecordingHarness> {
    return launchHarness(
      () => RecordingPlatform.start(),
      'sandpiper-recording-',
      (parts) => new RecordingHarness(parts, options),
    );
  }

  protected fakeFlags(): Record<string, unknown> {
    return {};
  }

  protected createAdapter(_config: Config): RecordingAdapter {
    return this.fake.adapter;
  }
}
