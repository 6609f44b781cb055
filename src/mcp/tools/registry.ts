// What a tool area registers its tools against (src/mcp/server.ts builds it for each request): kept
// apart from the server, so the tool areas the server imports never import it back.
import type { ServerContext } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { ToolContext } from '../context';
import type { Scope } from '../../auth/scopes';

/** A tool's answer: a value sent as JSON text, or text already JSON, passed through unparsed. */
export type ToolAnswer = unknown;

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
