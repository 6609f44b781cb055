// The MCP server for AI assistants (spec part 5 rule 9), one McpAgent Durable Object per session.
// This first version serves the documentation resources (the API reference); the tools over
// project data, and the OAuth sign-in and approval in front of them, come with the MCP server's issue.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpAgent } from 'agents/mcp';
import type { Env } from '../env';

// `Cloudflare.Env` is empty in the Worker and holds the test bindings in tests; McpAgent requires it.
export class PostureMcp extends McpAgent<Env & Cloudflare.Env> {
  server = new McpServer({ name: 'posture-analysis', version: '1.0.0' });

  async init(): Promise<void> {
    this.server.registerResource(
      'api-reference',
      'posture://docs/openapi.json',
      { title: 'API reference (OpenAPI 3.1)', description: 'Every operation of the posture analysis API, its parameters, answers and errors.', mimeType: 'application/json' },
      async (uri) => {
        const { app } = await import('../app');
        const res = await app.request('/api/v1/openapi.json', {}, this.env);
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: await res.text() }] };
      },
    );
  }
}
