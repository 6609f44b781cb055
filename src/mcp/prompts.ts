// Prompts for the common questions: they tell the assistant which tools answer them, in what order.
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const ProjectArgs = z.object({ projectId: z.string().describe('The project id (listProjects lists them).') });

const userText = (text: string) => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] });

export function registerPrompts(server: McpServer): void {
  server.registerPrompt('fix-first', {
    title: 'What must this project fix first?',
    description: 'The fixes that raise the project\'s posture score the most, with what each one costs to leave.',
    argsSchema: ProjectArgs,
  }, ({ projectId }) => userText([
    `What must project ${projectId} fix first?`,
    'Use the posture tools: listPortfolios for the project (the built-in "All subjects" portfolio covers everything; a portfolio the team named may matter more),',
    'then getPortfolioState for the scores per axis (pqc, vuln, agility) and what costs the most, and rankPortfolioFixes (summary=true, limit 10) for the ranked fixes.',
    'For the top three, say what to do (upgrade to fix_version, or migrate to the replacement), why (the findings and their deadlines), where (reach: subjects), and the gain;',
    'check the combined gain with simulatePortfolioFixes. Mention post-quantum deadlines that have passed or fall within two years.',
  ].join(' ')));

  server.registerPrompt('changes-since-last-survey', {
    title: 'What changed since the last survey?',
    description: 'Findings added and removed between the project\'s two latest completed surveys, and how the scores moved.',
    argsSchema: ProjectArgs,
  }, ({ projectId }) => userText([
    `What changed in project ${projectId} since the last survey?`,
    'Use listJobs (topLevel=true, status COMPLETED) to find the two latest completed surveys of the same type and getJob for their reports,',
    'then compareReports (from: the older report, to: the newer one) for each report type. Summarise what was added, removed and changed (new red cryptography,',
    'new or fixed vulnerabilities), and use getPortfolioHistory of the built-in portfolio to say how the scores moved and why (cause).',
  ].join(' ')));
}
