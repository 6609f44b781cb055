// Types for the migration bundle drizzle-kit writes beside this file (migrations.js).
declare const migrations: { journal: { entries: { idx: number; when: number; tag: string; breakpoints: boolean }[] }; migrations: Record<string, string> };
export default migrations;
