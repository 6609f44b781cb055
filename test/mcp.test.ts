// The MCP endpoint (spec part 5 rule 9): for now the documentation resources, over Streamable HTTP.
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';

const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function rpc(body: unknown, session?: string) {
  const res = await exports.default.fetch(new Request('http://localhost/mcp', {
    method: 'POST', headers: { ...headers, ...(session ? { 'mcp-session-id': session } : {}) }, body: JSON.stringify(body),
  }));
  const text = await res.text();
  // Streamable HTTP answers JSON or a short event stream carrying the JSON-RPC message.
  const data = text.startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data: '))?.slice(6) ?? 'null';
  return { res, message: JSON.parse(data) };
}

describe('MCP documentation resources', () => {
  it('initializes a session and serves the API reference as a resource', async () => {
    const init = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } });
    expect(init.res.status).toBe(200);
    expect(init.message.result.serverInfo.name).toBe('posture-analysis');
    const session = init.res.headers.get('mcp-session-id')!;
    expect(session).toBeTruthy();
    await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
    const list = await rpc({ jsonrpc: '2.0', id: 2, method: 'resources/list' }, session);
    expect(list.message.result.resources.map((r: { uri: string }) => r.uri)).toContain('posture://docs/openapi.json');
    const read = await rpc({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'posture://docs/openapi.json' } }, session);
    const doc = JSON.parse(read.message.result.contents[0].text);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/api/v1/project/{projectId}/v1/job']).toBeDefined();
  });
});
