// One MCP server per request, bound to the verified assistant (src/mcp/handler.ts): tools per area,
// the documentation resources and the prompts. Tools call the same domain functions and permission
// checks as the HTTP handlers; every failure, a tool's invalid argument included, is an `isError`
// result carrying the API's error body. `tools/list` shows only the tools the approval's scopes allow.
import { McpServer, type CallToolResult, type ServerContext, type StandardSchemaWithJSON, type Tool } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { bumpAccessEpoch } from '../auth/access-cache';
import { ApiError, errorBody, invalidParameter } from '../lib/errors';
import type { ToolContext } from './context';
import { hasScope, requireScope } from './context';
import { registerPrompts } from './prompts';
import { registerResources } from './resources';
import { registerActivityTools } from './tools/activity';
import { registerCredentialTools } from './tools/credentials';
import { registerDataHealthTools } from './tools/data-health';
import { registerJobTools } from './tools/jobs';
import { registerPortfolioTools } from './tools/portfolios';
import { registerProjectTools } from './tools/projects';
import { registerReportTools } from './tools/reports';
import { registerSubjectTools } from './tools/subjects';
import { registerDecisionTools } from './tools/decisions';
import { registerSurveyTools } from './tools/surveys';
import type { ToolAnswer, ToolRegistry, ToolSpec, ToolRun } from './tools/registry';

const SERVER_INFO = { name: 'posture-analysis', version: '1.0.0' } as const;

const jsonText = (value: ToolAnswer): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** A failure as the assistant sees it: the API's error body (`status`, `code`, `error`, `permission`...). */
export function toolError(error: unknown): CallToolResult {
  const apiError = error instanceof ApiError ? error : null;
  if (!apiError) console.error(JSON.stringify({ level: 'error', message: 'MCP tool failed', error: String(error), stack: (error as Error)?.stack }));
  const body = apiError ? errorBody(apiError) : { error: 'Something went wrong on our side; the failure was logged.', status: 500, code: 'internal' };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/**
 * What the SDK is given as a tool's input schema: the zod schema's JSON Schema for `tools/list`, and a
 * validation that lets every value through, so the tool checks its arguments itself and answers the
 * API's error body (the SDK would answer its own text, "Input validation error: ...").
 */
const advertised = (input: z.ZodObject): StandardSchemaWithJSON => ({
  '~standard': { version: 1, vendor: 'posture', validate: (value) => ({ value }), jsonSchema: input['~standard'].jsonSchema },
});

/** The arguments as the tool's schema reads them (ids lower-cased, defaults filled), or `invalid_parameter` naming the first one at fault. */
function argumentsOf<Input extends z.ZodObject>(input: Input, args: unknown): z.output<Input> {
  const parsed = input.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = issue.path.map(String);
  const parameter = path[0] ?? 'arguments';
  throw invalidParameter(parameter, `Invalid argument ${path.join('.') || parameter}: ${issue.message}`);
}

/** A listed tool; its JSON Schema is built only when `tools/list` is asked (as the SDK does). */
type Listed = Omit<Tool, 'inputSchema'> & { input: z.ZodObject };

const listing = ({ input, ...tool }: Listed): Tool =>
  ({ ...tool, inputSchema: { type: 'object', ...input['~standard'].jsonSchema.input({ target: 'draft-2020-12' }) } as Tool['inputSchema'] });

export function buildServer(context: ToolContext): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions: 'Posture analysis service: surveys of SBOMs and CBOMs, post-quantum cryptography findings, known vulnerabilities, crypto-agility scores, portfolios with ranked fixes. Start with listProjects (a project\'s id is its uuid), then a project\'s portfolios (getPortfolioState, rankPortfolioFixes) or its surveys (listJobs, getReportSummary). Ids are UUIDs; each tool\'s description names the field of its answer that holds the id the next tool takes.',
  });
  const listed: Listed[] = [];
  const registry: ToolRegistry = {
    context,
    tool(name, spec, run) {
      const annotations = { title: spec.title, readOnlyHint: spec.readOnly, destructiveHint: spec.destructive ?? false, openWorldHint: false };
      const inputSchema = advertised(spec.input);
      // Every tool is callable, so one outside the scopes answers `permission_denied` naming the scope
      // to tick; only those the scopes allow are listed.
      if (hasScope(context, spec.scope)) listed.push({ name, title: spec.title, description: spec.description, input: spec.input, annotations });
      server.registerTool(name, { title: spec.title, description: spec.description, inputSchema, annotations }, (async (args: unknown, request: ServerContext): Promise<CallToolResult> => {
        try {
          requireScope(context, spec.scope);
          const answer = await run(argumentsOf(spec.input, args), context, request);
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
  registerSurveyTools(registry);
  registerReportTools(registry);
  registerPortfolioTools(registry);
  registerSubjectTools(registry);
  registerDecisionTools(registry);
  registerDataHealthTools(registry);
  registerActivityTools(registry);
  registerCredentialTools(registry);
  // Replaces the SDK's own listing, which shows every registered tool.
  server.server.setRequestHandler('tools/list', () => ({ tools: listed.map(listing) }));
  registerResources(server, context);
  registerPrompts(server);
  return server;
}
