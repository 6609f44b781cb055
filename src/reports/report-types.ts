// The reports a survey produces, one REPORT step each (src/project/jobs.ts names which survey type
// produces which); the builders (./builders.ts) make one of each.
export type ReportType = 'pqc-inventory' | 'cbom' | 'composition';
export const REPORT_TYPES: readonly ReportType[] = ['pqc-inventory', 'cbom', 'composition'];
