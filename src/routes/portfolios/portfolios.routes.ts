import { defineRoute } from '../../lib/openapi';
import { json, jsonBody, ProjectParams } from '../../lib/schemas';
import type { Access } from '../../middleware/auth';
import { portfolioFirst } from './portfolio-first';
import {
  AddMember, CreatePortfolio, History, HistoryQuery, MemberList, MemberParams, Portfolio, PortfolioList, PortfolioParams, PortfolioState, RankFlag,
  RankPage, RankQuery, RemoveMemberQuery, SimulateBody, Simulation, UpdatePortfolio,
} from './portfolios.schemas';

const P = '/api/v1/project/{projectId}';
const tags = ['Portfolios'];
const view: Access = { creds: 'any', permissions: ['project:portfolio:view'] };
const edit: Access = { creds: 'any', permissions: ['project:portfolio:view', 'project:edit'] };
const notSetUp = ' 404 also while the project\'s storage is still being set up (portfolios are not set up yet).';

export const listPortfolios = defineRoute({
  operationId: 'listPortfolios',
  method: 'get', path: `${P}/v1/portfolio`, tags, summary: 'List portfolios',
  description: `The built-in portfolio (\`is_implicit\`, every subject) first, then the others by name, each with its members and latest overall score.${notSetUp}`,
  access: view, errors: [404, 503],
  request: { params: ProjectParams },
  responses: { 200: { description: 'The portfolios.', ...json(PortfolioList) } },
});

export const createPortfolio = defineRoute({
  operationId: 'createPortfolio',
  method: 'post', path: `${P}/v1/portfolio`, tags, summary: 'Create a portfolio',
  description: `Scored on the scoring queue at once (state and rank answer 503 \`unscored\` until then); its history is filled from past surveys by a PORTFOLIO_BACKFILL job. 400 when \`name\` is missing or blank or a member is invalid.${notSetUp}`,
  access: edit, errors: [400, 404, 415, 503],
  request: { params: ProjectParams, ...jsonBody(CreatePortfolio) },
  responses: { 201: { description: 'The portfolio.', ...json(Portfolio) } },
});

export const getPortfolio = defineRoute({
  operationId: 'getPortfolio',
  method: 'get', path: `${P}/v1/portfolio/{portfolioId}`, tags, summary: 'A portfolio, with its settings',
  access: view, errors: [404, 503],
  request: { params: PortfolioParams },
  responses: { 200: { description: 'The portfolio.', ...json(Portfolio) } },
});

export const updatePortfolio = defineRoute({
  operationId: 'updatePortfolio',
  method: 'put', path: `${P}/v1/portfolio/{portfolioId}`, tags, summary: 'Rename a portfolio or replace its members',
  description: 'A new member list replaces the whole list and rescores the portfolio (503 `rescoring` until done). 400 for the built-in portfolio or an invalid member.',
  access: edit, errors: [400, 404, 415, 503],
  middleware: [portfolioFirst] as const,
  request: { params: PortfolioParams, ...jsonBody(UpdatePortfolio) },
  responses: { 200: { description: 'The portfolio.', ...json(Portfolio) } },
});

export const deletePortfolio = defineRoute({
  operationId: 'deletePortfolio',
  method: 'delete', path: `${P}/v1/portfolio/{portfolioId}`, tags, summary: 'Delete a portfolio',
  description: 'Its reads answer 404 afterwards; subjects and ratings are untouched. 400 for the built-in portfolio.',
  access: edit, errors: [400, 404, 503],
  request: { params: PortfolioParams },
  responses: { 204: { description: 'Deleted.' } },
});

export const portfolioHistory = defineRoute({
  operationId: 'getPortfolioHistory',
  method: 'get', path: `${P}/v1/portfolio/{portfolioId}/history`, tags, summary: 'Score history',
  description: 'One row per score movement, oldest first: axis, score, band, cause (`survey`, `membership`, `rating`, `vulnerability-data`, `snapshot`, `backfill`, and `decision` when a decision about a finding changed what counts) and time.',
  access: view, errors: [400, 404, 503],
  request: { params: PortfolioParams, query: HistoryQuery },
  responses: { 200: { description: 'The history.', ...json(History) } },
});

export const listMembers = defineRoute({
  operationId: 'listPortfolioMembers',
  method: 'get', path: `${P}/v1/portfolio/{portfolioId}/member`, tags, summary: 'A portfolio\'s members',
  description: 'The built-in portfolio lists every subject of the project.',
  access: view, errors: [404, 503],
  request: { params: PortfolioParams },
  responses: { 200: { description: 'The members.', ...json(MemberList) } },
});

export const addMember = defineRoute({
  operationId: 'addPortfolioMember',
  method: 'post', path: `${P}/v1/portfolio/{portfolioId}/member`, tags, summary: 'Add a member',
  description: 'A member `{type, value}` or a plain string (a subject). Adding one already present changes nothing. Rescores the portfolio. 400 for the built-in portfolio or an invalid member.',
  access: edit, errors: [400, 404, 415, 503],
  middleware: [portfolioFirst] as const,
  request: { params: PortfolioParams, ...jsonBody(AddMember) },
  responses: { 200: { description: 'The members after the addition.', ...json(MemberList) } },
});

export const removeMember = defineRoute({
  operationId: 'removePortfolioMember',
  method: 'delete', path: `${P}/v1/portfolio/{portfolioId}/member/{value}`, tags, summary: 'Remove a member',
  description: 'Rescores the portfolio. 400 for the built-in portfolio or a `type` other than `subject` or `package`; 404 when the member does not exist.',
  access: edit, errors: [400, 404, 503],
  request: { params: MemberParams, query: RemoveMemberQuery },
  responses: { 200: { description: 'The members after the removal.', ...json(MemberList) } },
});

export const rank = defineRoute({
  operationId: 'rankPortfolioFixes',
  method: 'get', path: `${P}/v1/portfolio/{portfolioId}/rank`, tags, summary: 'Ranked fixes',
  description: 'Fixes ordered by the portfolio score gain if that row alone were fixed; ranks are kept when paged. `summary=true`: no items, at most 10 findings and 10 occurrences per row. Answered from the stored scoring: 503 `unscored` before the first, `rescoring` after a change. A first page (`offset` 0) is sent gzip-compressed (`Content-Encoding: gzip`) when `Accept-Encoding` allows it.',
  access: view, errors: [400, 404, 503],
  request: { params: PortfolioParams, query: RankQuery },
  responses: { 200: { description: 'A page of ranked fixes.', ...json(RankPage) } },
});

export const simulate = defineRoute({
  operationId: 'simulatePortfolioFixes',
  method: 'post', path: `${P}/v1/portfolio/{portfolioId}/simulate`, tags, summary: 'Project scores after fixes',
  description: 'Nothing is stored. A fix names a ranked row (`item_key`); alone it fixes the whole row, with `finding_key` one finding, with `dependency` a library the row bundles; `upgrade_to` is the version to upgrade to (default: everything the row carries is fixed). 400 when no fix is given, a fix gives both `finding_key` and `dependency`, names a row not in the ranked list, a finding or library the row does not carry, or an upgrade that cannot apply (still inside an affected range, below the installed version, or a migration row), or more than 1,000 fixes (a fix given twice counts once). 404 for a portfolio that does not exist, whatever the body. With `rank=true` the remaining rows are re-ranked.',
  // A POST that changes nothing: it reads like a GET and must not make every isolate drop its cached credentials.
  access: { ...view, changesNothing: true }, errors: [400, 404, 415, 503],
  middleware: [portfolioFirst] as const,
  request: { params: PortfolioParams, query: RankFlag, ...jsonBody(SimulateBody) },
  responses: { 200: { description: 'Current and projected scores.', ...json(Simulation) } },
});

export const state = defineRoute({
  operationId: 'getPortfolioState',
  method: 'get', path: `${P}/v1/portfolio/{portfolioId}/state`, tags, summary: 'Scores and their breakdown',
  description: 'The current score overall and per axis, with bands, the breakdown by axis and by subject naming the findings that cost the most points, and when it was computed. With `rank=true`, the first 1,000 ranked fixes in summary form. 503 `unscored` / `rescoring` as for rank. Sent gzip-compressed (`Content-Encoding: gzip`) when `Accept-Encoding` allows it.',
  access: view, errors: [400, 404, 503],
  request: { params: PortfolioParams, query: RankFlag },
  responses: { 200: { description: 'The state.', ...json(PortfolioState) } },
});
