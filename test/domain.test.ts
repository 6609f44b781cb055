// The domain's own tests, in one file so that they share one workerd (each test file starts its own, a
// few seconds each): plain functions over fixtures, no storage (crypto classification and libraries,
// the links between crypto assets, vulnerability matching and version ordering, the scoring model, the
// answer cache, the five document renderings, the MCP pages). Each part is in test/domain/; run one
// with `npx vitest run test/domain.test.ts -t '<its describe>'`.
import './domain/crypto-classification';
import './domain/crypto-libraries';
import './domain/crypto-links';
import './domain/vulns-matching';
import './domain/vulns-versions';
import './domain/scoring-model';
import './domain/scoring-steps';
import './domain/answer-cache';
import './domain/render-composition';
import './domain/render-fixtures';
import './domain/render-pptx';
import './domain/render-xlsx';
import './domain/render-pdf';
import './domain/render-html-csv';
import './domain/mcp-pages';
import './domain/triage-decisions';
