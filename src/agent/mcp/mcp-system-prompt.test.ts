/** The MCP resource and prompt catalogs rendered into the system message. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildMcpCatalog, type ServerCatalog } from './mcp-catalog.js';
import { buildMcpSystemPromptSection } from './mcp-system-prompt.js';

function catalogOf(partial: Partial<ServerCatalog>) {
  return buildMcpCatalog(new Map([['srv', { tools: [], resources: [], templates: [], prompts: [], ...partial }]]));
}

describe('buildMcpSystemPromptSection', () => {
  it('is empty without resources and prompts', () => {
    assert.equal(buildMcpSystemPromptSection(catalogOf({})), '');
  });

  it('caps resources at 50 and prompts at 30, escaping descriptions', () => {
    const resources = Array.from({ length: 60 }, (_, i) => ({
      uri: `x://r/${i}`,
      name: '',
      description: i === 0 ? '<b>&"bold"' : '',
      mimeType: '',
    }));
    const prompts = Array.from({ length: 35 }, (_, i) => ({
      name: `p${i}`,
      description: 'd',
      arguments: [{ name: 'a<b', description: '', required: false }],
    }));
    const section = buildMcpSystemPromptSection(catalogOf({ resources, prompts }));
    assert.match(section, /^<mcp-resources>\n {2}x:\/\/r\/0 {2}&lt;b&gt;&amp;&quot;bold&quot;\n/);
    assert.ok(section.includes('x://r/49'));
    assert.ok(!section.includes('x://r/50'));
    assert.ok(section.includes('  mcp__srv__p29(a&lt;b)  d'));
    assert.ok(!section.includes('mcp__srv__p30'));
    assert.match(
      section,
      /Use use_prompt\(name='\.\.\.', arguments=\{\.\.\.\}\) to invoke the prompts listed above\.$/,
    );
  });
});
