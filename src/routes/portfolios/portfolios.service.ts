// Portfolio operations shared by the HTTP handlers and the MCP tools: the stored rank and state
// answered as JSON text, and simulation (fixes resolved here; an upgrade is checked against the
// vulnerability database in D1; the projection computed from the stored model).
import { recordChange, type Changer } from '../../control/changes';
import type { Env } from '../../env';
import type { JsonObject } from '../../lib/json';
import { packageOf } from '../../analysis/vulns/ecosystem';
import { matchPackage } from '../../analysis/vulns/match';
import { withPortfolioData } from '../../project/client';
import type { StoredAnswer } from '../../project/answer-cache';
import type { SimulationInputs } from '../../project/scoring-store';
import type { Effect } from '../../scoring/portfolio';
import { fixesOf, MAX_FIXES, resolveFixes, rowsNeeded, simulation, type StoredRow, type UpgradeCheck } from '../../scoring/simulate';
import { lookupRecords } from '../../vulndb/lookup';

/**
 * Which advisories each upgrade's version is still affected by, for every installed flavour of the
 * row's package (its distro, ecosystem): the records of every package asked are read in one lookup.
 */
function upgradeCheck(db: D1Database | D1DatabaseSession): UpgradeCheck {
  return {
    async stillAffected(asks) {
      const packagesOf = asks.map((ask) => {
        const packages = new Map<string, ReturnType<typeof packageOf> & object>();
        for (const item of ask.items) {
          const pkg = typeof item.purl === 'string' ? packageOf(item.purl) : null;
          if (pkg) packages.set(`${pkg.ecosystem}\u0000${pkg.name}`, pkg);
        }
        return packages;
      });
      const records = await lookupRecords(db, packagesOf.flatMap((packages) => [...packages.values()]), undefined, SIMULATION_LOOKUP_PAGE);
      return asks.map((ask, i) => {
        const affected = new Set<string>();
        for (const [key, pkg] of packagesOf[i]!) {
          for (const advisory of matchPackage(pkg, ask.version, records.get(key) ?? []).advisories) affected.add(advisory.id);
        }
        return affected;
      });
    },
  };
}

/** A simulation's fixes name at most MAX_FIXES rows, each a few installed flavours: one lookup query holds them all. */
const SIMULATION_LOOKUP_PAGE = MAX_FIXES * 4;

const storedRows = (inputs: SimulationInputs): Map<string, StoredRow> =>
  new Map(inputs.rows.map((r) => [r.itemKey, { itemKey: r.itemKey, row: r.row, effects: JSON.parse(r.effects) as Effect[] }]));

type RankInput = { portfolioId: string; offset: number; limit: number; summary: boolean };

/** A page of ranked fixes: the stored rows written out as they are, gzip-compressed when `gzip`. */
export function rankAnswer(env: Env, projectId: string, input: RankInput & { gzip: boolean }): Promise<StoredAnswer> {
  return withPortfolioData<StoredAnswer>(env, projectId, (stub) => stub.portfolioRankAnswer(input));
}

/** The portfolio's state (with the first ranked fixes in summary form when `rank`), gzip-compressed when `gzip`. */
export function stateAnswer(env: Env, projectId: string, input: { portfolioId: string; rank: boolean; gzip: boolean }): Promise<StoredAnswer> {
  return withPortfolioData<StoredAnswer>(env, projectId, (stub) => stub.portfolioStateAnswer(input));
}

/** Asked for without gzip, an answer is text. */
const textOf = (answer: StoredAnswer) => (answer as { text: string }).text;

/** A page of ranked fixes as JSON text. */
export async function rankText(env: Env, projectId: string, input: RankInput): Promise<string> {
  return textOf(await rankAnswer(env, projectId, { ...input, gzip: false }));
}

/** The portfolio's state as JSON text. */
export async function stateText(env: Env, projectId: string, portfolioId: string, rank: boolean): Promise<string> {
  return textOf(await stateAnswer(env, projectId, { portfolioId, rank, gzip: false }));
}

/**
 * Current and projected scores after the fixes; nothing is stored. With `rank`, the remaining rows
 * re-ranked. `db` serves the vulnerability lookups: a read session (simulation changes nothing).
 */
export async function simulate(env: Env, db: D1Database | D1DatabaseSession, projectId: string, portfolioId: string, body: unknown, rank: boolean) {
  const fixes = fixesOf(body);
  const inputs = await withPortfolioData<SimulationInputs>(env, projectId, (stub) => stub.simulationInputs({ portfolioId, itemKeys: rowsNeeded(fixes), all: rank }));
  const rows = storedRows(inputs);
  const resolved = await resolveFixes(fixes, rows, upgradeCheck(db));
  return simulation(inputs.model, resolved, rank ? [...rows.values()] : undefined);
}

export { recordChange, type Changer };

export type MemberSpec = string | { type: string; value: string };

/** Creates a portfolio (scored on the queue at once) and records `portfolio.created`. */
export async function createPortfolio(env: Env, by: Changer, body: { name: string; members?: MemberSpec[] }): Promise<JsonObject> {
  const portfolio = await withPortfolioData<JsonObject>(env, by.projectId, (stub) => stub.createPortfolio(body));
  await recordChange(env, by, 'portfolio.created', { portfolioId: portfolio.portfolio_id as string, name: portfolio.name as string });
  return portfolio;
}

/** Renames a portfolio or replaces its members (rescored), and records `portfolio.updated`. */
export async function updatePortfolio(env: Env, by: Changer, portfolioId: string, body: { name?: string; members?: MemberSpec[] }): Promise<JsonObject> {
  const portfolio = await withPortfolioData<JsonObject>(env, by.projectId, (stub) => stub.updatePortfolio({ portfolioId, ...body }));
  await recordChange(env, by, 'portfolio.updated', { portfolioId, name: portfolio.name as string, membersReplaced: body.members !== undefined });
  return portfolio;
}

/** Deletes a portfolio and records `portfolio.deleted`. */
export async function deletePortfolio(env: Env, by: Changer, portfolioId: string): Promise<void> {
  const { name } = await withPortfolioData<{ name: string }>(env, by.projectId, (stub) => stub.deletePortfolio(portfolioId));
  await recordChange(env, by, 'portfolio.deleted', { portfolioId, name });
}

type MemberList = { members: JsonObject[] };

/** Adds a member (rescored) and records `portfolio.member.added` when it was not already there. */
export async function addPortfolioMember(env: Env, by: Changer, portfolioId: string, member: MemberSpec): Promise<MemberList> {
  const answer = await withPortfolioData<MemberList & { added: boolean; member: JsonObject }>(env, by.projectId, (stub) => stub.addPortfolioMember({ portfolioId, member }));
  if (answer.added) await recordChange(env, by, 'portfolio.member.added', { portfolioId, member: answer.member });
  return { members: answer.members };
}

/** Removes a member (rescored; 404 when it is not one) and records `portfolio.member.removed`. */
export async function removePortfolioMember(env: Env, by: Changer, portfolioId: string, member: { type: 'subject' | 'package'; value: string }): Promise<MemberList> {
  const answer = await withPortfolioData<MemberList & { member: JsonObject }>(env, by.projectId, (stub) => stub.removePortfolioMember({ portfolioId, ...member }));
  await recordChange(env, by, 'portfolio.member.removed', { portfolioId, member: answer.member });
  return { members: answer.members };
}
