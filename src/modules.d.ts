// SQL files are bundled as text (wrangler.toml [[rules]]): the project Durable Object's migrations.
declare module '*.sql' {
  const sql: string;
  export default sql;
}

// The documentation the MCP server offers as resources (docs/*.md), bundled as text.
declare module '*.md' {
  const markdown: string;
  export default markdown;
}

// workerd's node:crypto (nodejs_compat flag): the synchronous SHA-256 that fingerprints a key's value
// (which is never kept) and shortens certificate identities while a document is read.
declare module 'node:crypto' {
  interface Hash {
    update(data: string): Hash;
    digest(encoding: 'hex'): string;
  }
  export function createHash(algorithm: 'sha256'): Hash;
}
