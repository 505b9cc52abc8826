/**
 * The ChannelAdapter contract: what every platform must do the same, checked end to end through the platform's own
 * client or streams (discord.js, bolt, the terminal's input and output, the recording adapter's records) with the real
 * gateway and agent in between. A platform joins by writing a `ContractDriver` (test/integration/channel-adapter.
 * <platform>.test.ts); a case needing what the platform lacks (a capability of the port, or a `Trait`) is skipped by
 * name. Behaviour written once in the gateway can only drift per platform in the adapter; this suite is where that shows.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { approvalCases } from './approvals.contract.js';
import { conversationCases } from './conversation.contract.js';
import { directCases } from './direct.contract.js';
import { CONTRACT_FLAGS, personId, type ContractContext, type StartDriver } from './driver.js';
import { fileCases } from './files.contract.js';
import { limitsContract } from './limits.contract.js';

export {
  CONTRACT_FLAGS,
  CONTRACT_MODELS,
  LIMIT_FLAGS,
  PDF_BYTES,
  pngOf,
  type ContractDriver,
  type SeenCard,
  type SeenClick,
  type StartDriver,
  type Trait,
} from './driver.js';

/** `start(flags)` boots a driver whose gateway has `flags` and the models `fake` and CONTRACT_MODELS. */
export function channelAdapterContract<U>(platform: string, start: StartDriver<U>): void {
  limitsContract(platform, start);
  describe(`ChannelAdapter contract: ${platform}`, () => {
    let context: ContractContext<U> | undefined;
    const ctx = (): ContractContext<U> => {
      if (!context) throw new Error('the contract driver did not start');
      return context;
    };
    before(async () => {
      const d = await start(CONTRACT_FLAGS);
      const owner = await d.linkedUser(personId(platform, 'U0CONOWNER', '400000000000000091'), 'owner');
      const stranger = await d.linkedUser(personId(platform, 'U0CONSTRANGER', '400000000000000092'), 'stranger');
      context = { d, owner, stranger };
    });
    after(async () => {
      await context?.d.close();
    });

    conversationCases(ctx);
    approvalCases(ctx);
    directCases(ctx);
    fileCases(ctx);

    it('sent only request bodies the platform’s API description accepts', () => {
      assert.deepEqual(ctx().d.protocolProblems(), []);
    });
  });
}
