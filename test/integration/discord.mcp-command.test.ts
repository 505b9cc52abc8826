/** `/mcp` and `/mcp refresh` in a thread, over the real discord.js client, with a real MCP server (server-everything). */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createMcpManager, type McpManager } from '../../src/agent/mcp/mcp-manager.js';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';
import { everythingStdio } from '../fakes/mcp-servers.js';

describe('discord /mcp in a conversation', () => {
  let mcp: McpManager;
  let h: DiscordHarness;
  before(async () => {
    mcp = createMcpManager({
      servers: [everythingStdio()],
      parentEnv: { PATH: process.env['PATH'], HOME: process.env['HOME'] },
      debounceMs: 50,
    });
    await mcp.start();
    h = await DiscordHarness.start({ mcp });
  });
  after(async () => {
    await h.close();
    await mcp.shutdown();
  });

  const replyOf = (id: string) =>
    h.fake.waitFor(() => h.fake.state.interactions.get(id)?.reply, 15_000, 'interaction reply');

  it("shows the servers to the thread's owner, refreshes them on request, and tells anyone else nothing", async () => {
    const { user } = await h.linkedUser('400000000000000051', 'mona');
    h.llm.enqueue({ text: 'Hello Mona.' });
    const { threadId } = await h.mention(user, 'hi there');
    await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === 'Hello Mona.'), 20_000, 'answer');
    const tools = mcp.status().tools;
    assert.ok(tools > 0);

    const show = h.fake.state.slashCommand('mcp', threadId, user);
    const shown = await replyOf(show.id);
    assert.match(shown, /^MCP servers: 1 of 1 connected/);
    assert.match(shown, new RegExp(`\`everything\` \\(stdio\\): connected; ${tools} tools`));
    assert.equal(h.fake.state.interactions.get(show.id)?.ephemeral, true, 'only the caller sees it');

    const refresh = h.fake.state.slashCommand('mcp', threadId, user, { action: 'refresh' });
    assert.match(await replyOf(refresh.id), /^Refreshed the MCP servers\.\nMCP servers: 1 of 1 connected/);

    const { user: stranger } = await h.linkedUser('400000000000000052', 'nils');
    const refused = h.fake.state.slashCommand('mcp', threadId, stranger, { action: 'refresh' });
    assert.match(await replyOf(refused.id), /Only the owner/);
    const outside = h.fake.state.slashCommand('mcp', CHANNEL_ID, user);
    assert.match(await replyOf(outside.id), /inside a Sandpiper thread/);
  });
});
