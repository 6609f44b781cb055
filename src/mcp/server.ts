// One MCP server per request, bound to the verified assistant (src/mcp/handler.ts): tools per area,
// the documentation resources and the prompts. Tools call the same domain functions and permission
// checks as the HTTP handlers; every failure is an `isError` result carrying the API's error body.
import { McpServer, type CallToolResult, type ServerContext } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { bumpAccessEpoch } from '../auth/access-cache';
import { ApiError, errorBody } from '../lib/errors';
import type { ToolContext } from './context';
import { requireScope } from './context';
import { registerPrompts } from './prompts';
import { registerResources } from './resources';
import type { Scope } from './scopes';
import { registerActivityTools } from './tools/activity';
import { registerCredentialTools } from './tools/credentials';
import { registerDataHealthTools } from './tools/data-health';
import { registerJobTools } from './tools/jobs';
import { registerPortfolioTools } from './tools/portfolios';
import { registerProjectTools } from './tools/projects';
import { registerReportTools } from './tools/reports';
import { registerSubjectTools } from './tools/subjects';

const SERVER_INFO = { name: 'posture-analysis', version: '1.0.0' } as const;

/** A tool's answer: a value sent as JSON text, or text already JSON, passed through unparsed. */
type ToolAnswer = unknown;

export interface ToolSpec<Input extends z.ZodObject> {
  title: string;
  description: string;
  input: Input;
  /** The scope the person must have ticked. */
  scope: Scope;
  /** Changes nothing (reads) or changes data; shown to the assistant as hints. */
  readOnly: boolean;
  destructive?: boolean;
}

export type ToolRun<Input extends z.ZodObject> = (args: z.output<Input>, context: ToolContext, request: ServerContext) => Promise<ToolAnswer>;

/** What a tool registers against: the server and the request's context. */
export interface ToolRegistry {
  tool<Input extends z.ZodObject>(name: string, spec: ToolSpec<Input>, run: ToolRun<Input>): void;
  context: ToolContext;
}

const jsonText = (value: ToolAnswer): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** A failure as the assistant sees it: the API's error body (`status`, `code`, `error`, `permission`...). */
export function toolError(error: unknown): CallToolResult {
  const apiError = error instanceof ApiError ? error : null;
  if (!apiError) console.error(JSON.stringify({ level: 'error', message: 'MCP tool failed', error: String(error), stack: (error as Error)?.stack }));
  const body = apiError ? errorBody(apiError) : { error: 'Something went wrong on our side; the failure was logged.', status: 500, code: 'internal' };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

export function buildServer(context: ToolContext): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions: 'Posture analysis service: surveys of SBOMs and CBOMs, post-quantum cryptography findings, known vulnerabilities, crypto-agility scores, portfolios with ranked fixes. Start with listProjects, then a project\'s portfolios (getPortfolioState, rankPortfolioFixes) or its surveys (listJobs, getReportSummary). Ids are UUIDs.',
  });
  const registry: ToolRegistry = {
    context,
    tool(name, spec, run) {
      server.registerTool(name, {
        title: spec.title,
        description: spec.description,
        inputSchema: spec.input,
        annotations: { title: spec.title, readOnlyHint: spec.readOnly, destructiveHint: spec.destructive ?? false, openWorldHint: false },
      }, (async (args: unknown, request: ServerContext): Promise<CallToolResult> => {
        try {
          requireScope(context, spec.scope);
          const answer = await run(args as never, context, request);
          // A change invalidates what any isolate cached about the organization (as the HTTP middleware does).
          if (!spec.readOnly) await bumpAccessEpoch(context.env, context.app.orgId);
          return { content: [{ type: 'text', text: jsonText(answer) }] };
        } catch (error) {
          return toolError(error);
        }
      }) as never);
    },
  };
  registerProjectTools(registry);
  registerJobTools(registry);
  registerReportTools(registry);
  registerPortfolioTools(registry);
  registerSubjectTools(registry);
  registerDataHealthTools(registry);
  registerActivityTools(registry);
  registerCredentialTools(registry);
  registerResources(server, context);
  registerPrompts(server);
  return server;
}
