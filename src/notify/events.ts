// What the service tells people about (issue 24; docs/notifications.md): the event types, the versioned
// envelope every destination receives, how bad each event is, and which rules it matches. Plain data
// and plain functions: the project object raises and stores events (src/project/notify-store.ts).
import type { JsonObject } from '../lib/json';
import { BANDS } from '../scoring/model';

export const EVENT_TYPES = [
  'survey.failed', 'survey.completed', 'portfolio.band_changed', 'portfolio.score_dropped',
  'advisory.published', 'credential.expiring', 'data_health.stale',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The payload's version: a change that is not only an added field gets a new one. */
export const EVENT_VERSION = 1;

/** How bad an event is: the rule's `min_severity` compares against it. */
export const LEVELS = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Level = (typeof LEVELS)[number];
export const levelRank = (level: Level): number => LEVELS.indexOf(level);

/** The envelope: what every webhook receives as its body, and what Slack, Teams and email are formatted from. */
export interface NotifyEvent {
  type: EventType;
  version: number;
  id: string;
  occurred_at: string;
  project: { id: string; name: string; organization_id: string };
  /** How bad it is, and one line saying what happened. */
  severity: Level;
  summary: string;
  /** Where to look (the dashboard page or report). */
  link: string | null;
  data: JsonObject;
}

/** What rules narrow on, read from the event's data. */
export interface EventFacts {
  type: EventType;
  severity: Level;
  subject: string | null;
  portfolioId: string | null;
  /** portfolio.band_changed: the new band. */
  band: string | null;
  /** portfolio.score_dropped: points dropped (the largest axis drop). */
  drop: number | null;
  /** data_health.stale: days since the subject's last survey. */
  staleDays: number | null;
}

export interface RuleShape {
  events: string[];
  destinationIds: string[];
  subjects: string[] | null;
  portfolioIds: string[] | null;
  minSeverity: string | null;
  minBand: string | null;
  scoreDrop: number | null;
  staleDays: number | null;
  enabled: boolean;
}

/** Defaults when a rule names the event but not its threshold. */
export const DEFAULT_SCORE_DROP = 5;
export const DEFAULT_STALE_DAYS = 30;

/** A band's place from best to worst (src/scoring/model.ts): a rule's `min_band` fires at that band or worse. */
export const bandRank = (band: string): number => (BANDS as readonly string[]).indexOf(band);

/** Whether one rule wants one event. */
export function ruleMatches(rule: RuleShape, facts: EventFacts): boolean {
  if (!rule.enabled || !rule.events.includes(facts.type)) return false;
  if (rule.subjects?.length && (facts.subject === null || !rule.subjects.includes(facts.subject))) return false;
  if (rule.portfolioIds?.length && (facts.portfolioId === null || !rule.portfolioIds.includes(facts.portfolioId))) return false;
  if (rule.minSeverity && levelRank(facts.severity) > levelRank(rule.minSeverity as Level)) return false;
  if (rule.minBand && facts.band !== null && bandRank(facts.band) < bandRank(rule.minBand)) return false;
  if (facts.type === 'portfolio.score_dropped' && (facts.drop ?? 0) < (rule.scoreDrop ?? DEFAULT_SCORE_DROP)) return false;
  if (facts.type === 'data_health.stale' && (facts.staleDays ?? 0) < (rule.staleDays ?? DEFAULT_STALE_DAYS)) return false;
  return true;
}

/** The destinations an event goes to: every destination of every rule that wants it, once. */
export function destinationsFor(rules: RuleShape[], facts: EventFacts): string[] {
  const ids = new Set<string>();
  for (const rule of rules) if (ruleMatches(rule, facts)) for (const id of rule.destinationIds) ids.add(id);
  return [...ids];
}

/** The worst of some finding severities, as an event level. */
export function worstLevel(labels: Iterable<string>, floor: Level = 'info'): Level {
  let worst: Level = floor;
  for (const label of labels) {
    const level = (LEVELS as readonly string[]).includes(label) ? label as Level : 'low';
    if (levelRank(level) < levelRank(worst)) worst = level;
  }
  return worst;
}

/** The facts rules read, from a built event. */
export function factsOf(event: NotifyEvent): EventFacts {
  const d = event.data;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const num = (v: unknown) => (typeof v === 'number' ? v : null);
  return {
    type: event.type, severity: event.severity, subject: str(d.subject), portfolioId: str((d.portfolio as JsonObject | undefined)?.id),
    band: str(d.band), drop: num(d.drop), staleDays: num(d.days_since_survey),
  };
}
