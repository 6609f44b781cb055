// The documentation an assistant may read with the docs scope: the interface specification, the
// OpenAPI document, the CLI guide, how to produce the inputs, how scores and findings are computed, triage,
// notifications and the CI integrations.
import type { McpServer } from '@modelcontextprotocol/server';
import analysisGuide from '../../docs/analysis.md';
import cliGuide from '../../docs/cli.md';
import inputsGuide from '../../docs/inputs.md';
import specification from '../../docs/posture-api.md';
import scoringGuide from '../../docs/scoring.md';
import triageGuide from '../../docs/triage.md';
import notificationsGuide from '../../docs/notifications.md';
import ciGuide from '../../docs/ci.md';
import { ApiError } from '../lib/errors';
import type { ToolContext } from './context';
import { apiBaseUrl } from './oauth';
import { requireScope } from './context';

interface Doc {
  name: string;
  uri: string;
  title: string;
  description: string;
  mimeType: string;
  text: (context: ToolContext) => Promise<string> | string;
}

export const DOCUMENTS: readonly Doc[] = [
  { name: 'specification', uri: 'posture://docs/specification.md', title: 'Interface specification', mimeType: 'text/markdown',
    description: 'Every resource, field, state, endpoint, rule and error code of the posture analysis API.', text: () => specification },
  { name: 'api-reference', uri: 'posture://docs/openapi.json', title: 'API reference (OpenAPI 3.1)', mimeType: 'application/json',
    description: 'Every operation of the API with its parameters, answers and errors (the operation ids are the tool names).',
    text: async (context) => JSON.stringify((await import('../app')).openApiDocument(apiBaseUrl(context.env))) },
  { name: 'cli-guide', uri: 'posture://docs/cli.md', title: 'Command-line client guide', mimeType: 'text/markdown',
    description: 'Uploading bundles from CI with the posture CLI: upload passes, surveys, waiting, exit codes.', text: () => cliGuide },
  { name: 'inputs', uri: 'posture://docs/inputs.md', title: 'Producing the inputs', mimeType: 'text/markdown',
    description: 'How to produce SBOMs, CBOMs and runtime records with cdxgen, syft, the CycloneDX build plugins, CBOMkit and sonar-cryptography, and upload them.', text: () => inputsGuide },
  { name: 'scoring', uri: 'posture://docs/scoring.md', title: 'How scores are computed', mimeType: 'text/markdown',
    description: 'The three axes, penalties, bands, portfolio weighting, ranked fixes and simulation, with a worked example.', text: () => scoringGuide },
  { name: 'analysis', uri: 'posture://docs/analysis.md', title: 'How findings are made', mimeType: 'text/markdown',
    description: 'Cryptography classification (sections, deadlines, CNSA 2.0) with sources, and vulnerability matching.', text: () => analysisGuide },
  { name: 'triage', uri: 'posture://docs/triage.md', title: 'Triage: decisions about findings and VEX', mimeType: 'text/markdown',
    description: 'Decision states, scopes and what suppression changes; the triage queue; VEX import and export with the CycloneDX and OpenVEX mapping.', text: () => triageGuide },
  { name: 'notifications', uri: 'posture://docs/notifications.md', title: 'Notifications: alert destinations and rules', mimeType: 'text/markdown',
    description: 'Webhook, Slack, Teams and email destinations, alert rules, every event\'s payload, webhook signatures, retries, pace and safety.', text: () => notificationsGuide },
  { name: 'ci', uri: 'posture://docs/ci.md', title: 'CI integrations', mimeType: 'text/markdown',
    description: 'SARIF, JUnit and the markdown summary of a survey; the GitHub Action, the GitLab template and the shell script.', text: () => ciGuide },
];

export function registerResources(server: McpServer, context: ToolContext): void {
  for (const doc of DOCUMENTS) {
    server.registerResource(doc.name, doc.uri, { title: doc.title, description: doc.description, mimeType: doc.mimeType }, async (uri) => {
      // A resource read has no isError result: a refusal is a protocol error carrying the API's message.
      try {
        requireScope(context, 'docs:read');
      } catch (error) {
        throw new Error((error as ApiError).message);
      }
      return { contents: [{ uri: uri.href, mimeType: doc.mimeType, text: await doc.text(context) }] };
    });
  }
}
