// SQL files are bundled as text (wrangler.toml [[rules]]): the project Durable Object's migrations.
declare module '*.sql' {
  const sql: string;
  export default sql;
}
