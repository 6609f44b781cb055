// Building an event's payload from what it was raised about (its `ref`), when the object's alarm gets to
// it: the survey and its reports' figures as they are then, the score that moved, the advisory found.
// Each event says what happened (`summary`, `details`), how bad (`severity`) and where to look (`link`).
import type { JsonObject } from '../lib/json';
import { bandRank, EVENT_VERSION, worstLevel, type EventType, type Level, type NotifyEvent } from '../notify/events';
import { findJob, stepsOf } from './jobs';
import { summary as reportSummary } from './reports';
import type { notifyEvents } from './schema';
import type { ProjectState } from './state';

export interface ProjectFacts {
  id: string;
  name: string;
  organization_id: string;
  /** The dashboard's base URL, for links. */
  dashboardUrl: string;
}

type EventRow = typeof notifyEvents.$inferSelect;
type Built = { severity: Level; summary: string; link: string | null; data: JsonObject };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const count = (counts: unknown, key: string): number => Number((counts as Record<string, unknown> | undefined)?.[key] ?? 0) || 0;

/** A survey that completed: what is new against the subject's previous survey, per report. */
function surveyCompleted(state: ProjectState, project: ProjectFacts, surveyId: string): Built | null {
  const survey = findJob(state.db, surveyId);
  if (!survey) return null;
  const subject = typeof survey.metadata.subject === 'string' ? survey.metadata.subject : survey.target;
  const reports: JsonObject[] = [];
  const fresh = { red: 0, yellow: 0, critical: 0, high: 0, undecided: 0 };
  let previousSurveyId: string | null = null;
  for (const step of stepsOf(state.db, surveyId)) {
    const reportId = typeof step.metadata.report_id === 'string' ? step.metadata.report_id : null;
    if (step.stepType !== 'REPORT' || step.status !== 'COMPLETED' || !reportId) continue;
    const type = step.stepLabel ?? 'report';
    let headline = (step.metadata.figures ?? {}) as JsonObject;
    // The reports that carry findings are read as of now: what decisions cover is left out of "undecided".
    if (type === 'composition' || type === 'pqc-inventory') headline = (reportSummary(state, reportId).headline ?? headline) as JsonObject;
    const changes = (headline.changes ?? {}) as JsonObject;
    previousSurveyId ??= typeof changes.previous_survey_id === 'string' ? changes.previous_survey_id : null;
    if (type === 'pqc-inventory') { fresh.red += count(changes.new, 'red'); fresh.yellow += count(changes.new, 'yellow'); }
    if (type === 'composition') { fresh.critical += count(changes.new, 'critical'); fresh.high += count(changes.new, 'high'); }
    fresh.undecided += count(headline.undecided, 'new');
    reports.push({
      id: reportId, type, link: `${project.dashboardUrl}/projects/${project.id}/reports/${reportId}`,
      ...(headline.sections ? { sections: headline.sections } : {}), ...(headline.severities ? { severities: headline.severities } : {}),
      new: (changes.new ?? null) as JsonObject | null,
    });
  }
  const severity: Level = fresh.critical ? 'critical' : fresh.high || fresh.red ? 'high' : fresh.yellow ? 'medium' : fresh.undecided ? 'low' : 'info';
  const details = [
    fresh.critical || fresh.high ? `New advisories: ${fresh.critical} critical, ${fresh.high} high` : null,
    fresh.red || fresh.yellow ? `New cryptography to move away from: ${fresh.red} red, ${fresh.yellow} yellow` : null,
    fresh.undecided ? `${plural(fresh.undecided, 'new finding')} no decision covers` : null,
    previousSurveyId ? null : 'The subject\'s first survey: everything counts as new.',
  ].filter((d): d is string => d !== null);
  const what = fresh.critical + fresh.high + fresh.red + fresh.yellow ? 'brings new findings' : 'completed with nothing new of note';
  return {
    severity, summary: `Survey of ${subject ?? 'an unnamed subject'} ${what}`, link: `${project.dashboardUrl}/projects/${project.id}/surveys/${surveyId}`,
    data: { survey: { id: survey.id, type: survey.type, tag: survey.tag, target: survey.target, finished_at: survey.finishedAt }, subject, previous_survey_id: previousSurveyId, new: fresh, reports, details },
  };
}

function surveyFailed(state: ProjectState, project: ProjectFacts, surveyId: string): Built | null {
  const survey = findJob(state.db, surveyId);
  if (!survey) return null;
  const subject = typeof survey.metadata.subject === 'string' ? survey.metadata.subject : survey.target;
  const step = stepsOf(state.db, surveyId).find((s) => s.status === 'FAILED');
  return {
    severity: 'high', summary: `Survey of ${subject ?? 'an unnamed subject'} failed${step?.stepLabel ? ` in its ${step.stepLabel} step` : ''}`,
    link: `${project.dashboardUrl}/projects/${project.id}/surveys/${surveyId}`,
    data: {
      survey: { id: survey.id, type: survey.type, tag: survey.tag, target: survey.target, finished_at: survey.finishedAt }, subject,
      failure_class: survey.failureClass, message: survey.message, failed_step: step ? { id: step.id, type: step.stepType, label: step.stepLabel } : null,
      details: [survey.message ?? 'No message.'],
    },
  };
}

/** The builders of events whose `ref` already holds what they say. */
function fromRef(project: ProjectFacts, type: EventType, ref: JsonObject): Built {
  const link = (path: string) => `${project.dashboardUrl}/projects/${project.id}${path}`;
  switch (type) {
    case 'portfolio.band_changed': {
      const worse = bandRank(String(ref.band)) > bandRank(String(ref.previous_band));
      return {
        severity: ref.band === 'critical' ? 'critical' : worse ? 'high' : 'info',
        summary: `Portfolio ${String((ref.portfolio as JsonObject).name)}: ${String(ref.axis)} moved from ${String(ref.previous_band)} to ${String(ref.band)}`,
        link: link(`/portfolios/${String((ref.portfolio as JsonObject).id)}`), data: { ...ref, details: [`Score ${String(ref.previous_score)} → ${String(ref.score)} (${String(ref.cause)})`] },
      };
    }
    case 'portfolio.score_dropped':
      return {
        severity: Number(ref.drop) >= 20 ? 'high' : 'medium',
        summary: `Portfolio ${String((ref.portfolio as JsonObject).name)}: ${String(ref.axis)} score dropped ${String(ref.drop)} points`,
        link: link(`/portfolios/${String((ref.portfolio as JsonObject).id)}`), data: { ...ref, details: [`Score ${String(ref.previous_score)} → ${String(ref.score)} (${String(ref.cause)})`] },
      };
    case 'advisory.published': {
      const components = (ref.components ?? []) as JsonObject[];
      return {
        severity: worstLevel([String(ref.severity ?? 'unknown')], 'low'),
        summary: `${String(ref.advisory_id)} (${String(ref.severity ?? 'unknown')}) affects ${plural(components.length, 'component')} of ${String(ref.subject)}`,
        link: link(`/subjects/${encodeURIComponent(String(ref.subject))}`),
        data: { ...ref, details: [String(ref.summary ?? ''), ...components.slice(0, 5).map((c) => `${String(c.purl ?? c.name)}${c.fix_version ? ` (fixed in ${String(c.fix_version)})` : ''}`)].filter(Boolean) },
      };
    }
    case 'credential.expiring':
      return {
        severity: 'medium', summary: `The ${ref.kind === 'upload_pass' ? 'upload pass' : 'API token'} ${String(ref.name ?? ref.jti)} expires ${String(ref.expires_at).slice(0, 10)}`,
        link: link('/credentials'), data: { credential: ref, details: ['Create a new one before it expires, then cancel the old one.'] },
      };
    case 'data_health.stale': {
      const days = Math.floor((Date.now() - Date.parse(String(ref.finished_at))) / 86_400_000);
      return {
        severity: 'low', summary: `${String(ref.subject)} has not been surveyed for ${days} days`, link: link(`/subjects/${encodeURIComponent(String(ref.subject))}`),
        data: { subject: ref.subject, last_survey_id: ref.survey_id, last_surveyed_at: ref.finished_at, days_since_survey: days, details: ['Its findings may be out of date.'] },
      };
    }
    default:
      return { severity: 'info', summary: type, link: null, data: ref };
  }
}

function envelope(project: ProjectFacts, id: string, type: EventType, occurredAt: string, built: Built): NotifyEvent {
  return {
    type, version: EVENT_VERSION, id, occurred_at: occurredAt, project: { id: project.id, name: project.name, organization_id: project.organization_id },
    severity: built.severity, summary: built.summary, link: built.link, data: built.data,
  };
}

/** The event a raised row describes, or null when what it was about is gone. */
export function buildEvent(state: ProjectState, project: ProjectFacts, row: EventRow): NotifyEvent | null {
  const type = row.type as EventType;
  const surveyId = String(row.ref.survey_id ?? '');
  const built = type === 'survey.completed' ? surveyCompleted(state, project, surveyId)
    : type === 'survey.failed' ? surveyFailed(state, project, surveyId)
    : fromRef(project, type, row.ref);
  return built ? envelope(project, row.id, type, row.occurredAt, built) : null;
}

/** A sample of each event type, marked as a test (the test-send operation). */
export function sampleEvent(project: ProjectFacts, type: EventType): NotifyEvent {
  const now = new Date().toISOString();
  const id = `test.${type}:${crypto.randomUUID()}`;
  const samples: Record<EventType, Built> = {
    'survey.completed': {
      severity: 'critical', summary: 'Survey of payments-api brings new findings (test message)', link: `${project.dashboardUrl}/projects/${project.id}/surveys`,
      data: { survey: { id: '00000000-0000-0000-0000-000000000000', type: 'INVENTORY_SURVEY', tag: 'v1.2.3', target: 'payments-api', finished_at: now }, subject: 'payments-api', previous_survey_id: null, new: { red: 2, yellow: 1, critical: 1, high: 3, undecided: 7 }, reports: [], details: ['New advisories: 1 critical, 3 high', 'New cryptography to move away from: 2 red, 1 yellow', '7 new findings no decision covers'] },
    },
    'survey.failed': { severity: 'high', summary: 'Survey of payments-api failed in its analysis step (test message)', link: `${project.dashboardUrl}/projects/${project.id}/surveys`, data: { subject: 'payments-api', failure_class: 'invalid_bundle', message: 'The bundle holds no CycloneDX document.', details: ['The bundle holds no CycloneDX document.'] } },
    'portfolio.band_changed': fromRef(project, type, { portfolio: { id: '00000000-0000-0000-0000-000000000000', name: 'Payments' }, axis: 'pqc', previous_score: 62, score: 48, previous_band: 'fair', band: 'weak', cause: 'survey' }),
    'portfolio.score_dropped': fromRef(project, type, { portfolio: { id: '00000000-0000-0000-0000-000000000000', name: 'Payments' }, axis: 'vuln', previous_score: 80, score: 71, drop: 9, previous_band: 'strong', band: 'fair', cause: 'vulnerability-data' }),
    'advisory.published': fromRef(project, type, { subject: 'payments-api', advisory_id: 'GHSA-xxxx-xxxx-xxxx', aliases: ['CVE-2026-0001'], severity: 'high', summary: 'A sample advisory (test message).', components: [{ purl: 'pkg:npm/example@1.0.0', version: '1.0.0', fix_version: '1.0.1' }] }),
    'credential.expiring': fromRef(project, type, { jti: '00000000-0000-0000-0000-000000000000', kind: 'upload_pass', name: 'CI upload pass (test message)', expires_at: new Date(Date.now() + 6 * 86_400_000).toISOString() }),
    'data_health.stale': fromRef(project, type, { subject: 'payments-api', survey_id: '00000000-0000-0000-0000-000000000000', finished_at: new Date(Date.now() - 45 * 86_400_000).toISOString() }),
  };
  const event = envelope(project, id, type, now, samples[type]);
  return { ...event, data: { ...event.data, test: true } };
}
