/** MCP manager against real npm servers over stdio: server-everything and server-filesystem. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMcpManager, type McpManager } from '../../src/agent/mcp/mcp-manager.js';
import type { McpChangeKind } from '../../src/agent/mcp/mcp-manager-context.js';
import { FILESYSTEM, everythingStdio, stdioSpec, toolContext, waitFor } from '../fakes/mcp-servers.js';

describe('MCP manager over stdio (server-everything + server-filesystem)', () => {
  let manager: McpManager;
  let dir: string;
  const changes: McpChangeKind[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sandpiper-mcp-fs-'));
    writeFileSync(join(dir, 'hello.txt'), 'hello from disk\n');
    manager = createMcpManager({
      servers: [everythingStdio(), stdioSpec('fs', [FILESYSTEM, dir])],
      parentEnv: {
        PATH: process.env['PATH'],
        HOME: process.env['HOME'],
        SANDPIPER_TEST_API_KEY: 'must-not-leak',
        VISIBLE_VAR: 'visible',
      },
      debounceMs: 50,
    });
    manager.onChange((kind) => changes.push(kind));
    await manager.start();
  });

  after(async () => {
    await manager.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects both servers in parallel and reports their counts for /health', () => {
    const status = manager.status();
    assert.equal(status.servers, 2);
    const everything = status.perServer.find((server) => server.name === 'everything');
    const fs = status.perServer.find((server) => server.name === 'fs');
    assert.ok(everything?.connected && fs?.connected);
    assert.equal(everything.resources, 9, '7 static documents + 2 templates');
    assert.equal(everything.prompts, 4);
    assert.equal(fs.resources, 0);
    assert.equal(status.tools, everything.tools + fs.tools);
    assert.equal(status.resources, 9);
  });

  it('offers prefixed tools in OpenAI function form, plus read_resource and use_prompt', async () => {
    const tools = await manager.listTools();
    const names = tools.map((tool) => tool.name);
    assert.ok(names.includes('mcp__everything__echo'));
    assert.ok(names.includes('mcp__fs__read_text_file'));
    assert.ok(names.includes('read_resource') && names.includes('use_prompt'));
    const echo = tools.find((tool) => tool.name === 'mcp__everything__echo');
    assert.equal((echo?.parameters as { type?: string }).type, 'object');
    assert.ok(Object.keys((echo?.parameters as { properties: object }).properties).includes('message'));
    const catalogEcho = manager.catalog().toolMap.get('mcp__everything__echo');
    assert.equal(catalogEcho?.function.name, 'mcp__everything__echo');
    assert.equal(
      manager.catalog().toolMap.get('mcp__everything__trigger-long-running-operation')?.annotations['readOnlyHint'],
      true,
    );
  });

  it('calls a tool and returns its text; isError results are marked', async () => {
    const echo = {
      output: '<untrusted source="mcp" server="everything" tool="echo">\nEcho: hi\n</untrusted>',
      isError: false,
    };
    assert.deepEqual(
      await manager.callTool('mcp__everything__echo', { message: 'hi' }, toolContext()),
      echo,
      "the server's words are fenced as data",
    );
    const sum = await manager.callTool('mcp__everything__get-sum', { a: 2, b: 3 }, toolContext());
    assert.match(String(sum.output), /The sum of 2 and 3 is 5/);
    const bad = await manager.callTool('mcp__everything__get-sum', { a: 'x' }, toolContext());
    assert.equal(bad.isError, true);
    assert.match(String(bad.output), /^Error: /);
  });

  it('reads and writes files through server-filesystem', async () => {
    const read = await manager.callTool('mcp__fs__read_text_file', { path: join(dir, 'hello.txt') }, toolContext());
    assert.equal(
      read.output,
      '<untrusted source="mcp" server="fs" tool="read_text_file">\nhello from disk\n\n</untrusted>',
    );
    const written = await manager.callTool(
      'mcp__fs__write_file',
      { path: join(dir, 'out.txt'), content: 'written' },
      toolContext(),
    );
    assert.equal(written.isError, false);
    assert.equal(readFileSync(join(dir, 'out.txt'), 'utf8'), 'written');
    const denied = await manager.callTool('mcp__fs__read_text_file', { path: '/etc/hostname' }, toolContext());
    assert.equal(denied.isError, true);
    assert.match(String(denied.output), /Access denied/);
  });

  it('reads a static resource and a templated one', async () => {
    const prepared = await manager.prepare(
      'read_resource',
      { uri: 'demo://resource/static/document/features.md' },
      toolContext(),
    );
    assert.equal(prepared.needsApproval, true);
    assert.equal(prepared.approvalLabel, 'mcp_resource__demo://resource/static/document/features.md');
    const doc = await manager.callTool(
      'read_resource',
      { uri: 'demo://resource/static/document/features.md' },
      toolContext(),
    );
    assert.equal(doc.isError, false);
    assert.ok(String(doc.output).length > 20);
    const dynamic = await manager.callTool('read_resource', { uri: 'demo://resource/dynamic/text/1' }, toolContext());
    assert.equal(dynamic.isError, false);
    assert.match(String(dynamic.output), /1/);
    const unknown = await manager.callTool('read_resource', { uri: 'nope://x' }, toolContext());
    assert.equal(unknown.isError, true);
  });

  it('expands a prompt with arguments', async () => {
    const prepared = await manager.prepare(
      'use_prompt',
      { name: 'mcp__everything__args-prompt', arguments: { city: 'Paris' } },
      toolContext(),
    );
    assert.equal(prepared.approvalLabel, 'mcp__everything__args-prompt');
    const result = await manager.callTool(
      'use_prompt',
      { name: 'mcp__everything__args-prompt', arguments: { city: 'Paris' } },
      toolContext(),
    );
    assert.equal(result.output, "[user]: What's weather in Paris?");
    const unknown = await manager.prepare('use_prompt', { name: 'mcp__everything__nope' }, toolContext());
    assert.match(unknown.error ?? '', /Unknown MCP prompt/);
  });

  it('lists resources and prompts in the system prompt section', () => {
    const section = manager.systemPromptSection();
    assert.match(section, /<mcp-resources>[\s\S]*demo:\/\/resource\/static\/document\/features\.md/);
    assert.match(
      section,
      /Resource templates \(construct a URI and use read_resource\):\n {2}demo:\/\/resource\/dynamic\/text\/\{resourceId\}/,
    );
    assert.match(section, /<mcp-prompts>[\s\S]*mcp__everything__args-prompt\(city, state\)/);
  });

  it('offers the tools server-everything registers after initialize because we declare elicitation support', async () => {
    // The wire-level push → re-list sequence is asserted in mcp.resilience.test.ts through a logging proxy.
    await waitFor(
      () => manager.hasTool('mcp__everything__trigger-elicitation-request'),
      'the conditionally registered tool',
    );
    assert.ok(changes.includes('tools'));
  });

  it('refreshes resources after resources/list_changed, visible to a running session', async () => {
    const before = manager.catalog().resources.length;
    const result = await manager.callTool(
      'mcp__everything__gzip-file-as-resource',
      { name: 'x.gz', data: 'data:text/plain;base64,aGVsbG8=', outputType: 'resource' },
      toolContext(),
    );
    assert.equal(result.isError, false, String(result.output));
    await waitFor(
      () => manager.catalog().resourceMap.has('demo://resource/session/x.gz'),
      'the new session resource in the catalog',
    );
    assert.equal(manager.catalog().resources.length, before + 1);
    assert.match(manager.systemPromptSection(), /demo:\/\/resource\/session\/x\.gz/);
  });

  it('gives stdio children a scrubbed environment plus their own env', async () => {
    const result = await manager.callTool('mcp__everything__get-env', {}, toolContext());
    const text = String(result.output);
    assert.match(text, /VISIBLE_VAR/);
    assert.doesNotMatch(text, /SANDPIPER_TEST_API_KEY|must-not-leak/);
  });

  it('reports unknown tools with the list of valid names', async () => {
    const prepared = await manager.prepare('mcp__everything__nope', {}, toolContext());
    assert.match(
      prepared.error ?? '',
      /Unknown MCP tool: mcp__everything__nope\. Use one of these names exactly: .*mcp__everything__echo/,
    );
    assert.equal(manager.hasTool('mcp__everything__nope'), false);
    assert.equal(manager.hasTool('mcp__everything__echo'), true);
  });
});
