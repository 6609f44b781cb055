// A Vitest sequencer that starts the longest workerd test files first, on a fresh clone too.
//
// Two workers take the files in the order given, each the next when it is free, so the run ends
// when the worker that took the last long file ends. Vitest's own order is by the durations of the
// last run, kept in node_modules/.vite; a fresh clone has none, and then Vitest orders by file size,
// which put the grouped files (a few lines that import their parts) last: on the fresh-clone CI the
// dashboard pages (about 55 s) started when every other file had ended (docs/decisions.md, "The test
// suite's start-up"). The files named in LONGEST_FIRST start first, in that order; the others follow
// in Vitest's own order. Keep the list to the files that take longest (measured with `npx vitest run`).
import { BaseSequencer } from 'vitest/node';

/** The longest files, longest first (seconds measured on the shared 2-core machine, 2026-11-29). */
export const LONGEST_FIRST = [
  'test/project-data.test.ts', // ~44 s
  'test/dashboard-pages.test.ts', // ~33 s
  'test/organization.test.ts', // ~29 s
  'test/portfolios.test.ts', // ~24 s
  'test/report-documents.test.ts', // ~15 s
  'test/mcp.test.ts', // ~14 s
  'test/resurvey.test.ts', // ~13 s
  'test/platform.test.ts', // ~11 s
  'test/retention.test.ts', // ~10 s
  'test/domain.test.ts', // ~10 s
  'test/notifications.test.ts', // ~10 s
  'test/projects.test.ts', // ~10 s
  'test/decisions.test.ts', // ~10 s
  'test/analysis-pipeline.test.ts', // ~8 s
  'test/surveys-and-reports.test.ts', // ~8 s
  'test/uploads.test.ts', // ~8 s
];

export default class LongestFirstSequencer extends BaseSequencer {
  async sort(files) {
    const rest = await super.sort(files);
    const rank = (spec) => {
      const index = LONGEST_FIRST.findIndex((name) => spec.moduleId.endsWith(`/${name}`));
      return index < 0 ? LONGEST_FIRST.length : index;
    };
    // A stable sort: the files not named keep Vitest's order behind the named ones.
    return rest.map((spec, at) => ({ spec, at, rank: rank(spec) })).sort((a, b) => a.rank - b.rank || a.at - b.at).map((e) => e.spec);
  }
}
