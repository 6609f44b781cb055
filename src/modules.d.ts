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
