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

// The API reference viewer's standalone browser bundle, bundled as text (wrangler.toml [[rules]]) and
// served by src/routes/docs.
declare module '*/@scalar/api-reference/dist/browser/standalone.js' {
  const source: string;
  export default source;
}
