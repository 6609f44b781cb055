// CI outputs of a finished survey (docs/ci.md): who may read them, and the three formats. The
// handler (src/routes/surveys) stays thin; this reads the survey through the project object once.
import type { Env } from '../env';
import type { Principal } from '../auth/principal';
import { withProject } from '../project/client';
import type { CiSurveyData } from '../project/ci-findings';
import { evaluateGate, parseFailOn } from './gate';
import { junitXml } from './junit';
import { SARIF_MAX_RESULTS, sarifDocument } from './sarif';
import { summaryMarkdown } from './summary-md';

export const CI_FORMATS = ['sarif', 'junit', 'markdown'] as const;
export type CiFormat = (typeof CI_FORMATS)[number];

export const CI_CONTENT_TYPES: Record<CiFormat, string> = {
  sarif: 'application/sarif+json',
  junit: 'application/xml; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
};

/**
 * The survey's output in `format`. An upload pass reads only a survey it started (403 `forbidden`
 * otherwise); other credentials passed the route's `project:view` check.
 */
export async function ciOutput(env: Env, principal: Principal, input: { projectId: string; surveyId: string; format: CiFormat; failOn?: string; path?: string }): Promise<string> {
  const tokens = parseFailOn(input.failOn);
  const pass = principal.kind === 'upload_pass' ? principal.jti : null;
  const data = await withProject<CiSurveyData>(env, input.projectId, (stub) => stub.ciSurvey({ surveyId: input.surveyId, limit: SARIF_MAX_RESULTS, pass }));
  const gate = tokens.length ? evaluateGate(data.reports, tokens) : null;
  const base = env.API_URL.replace(/\/+$/, '');
  if (input.format === 'sarif') {
    const { text } = await sarifDocument(data, { informationUri: base, artifact: input.path, surveyUri: `${env.DASHBOARD_URL.replace(/\/+$/, '')}/projects/${input.projectId}/surveys/${data.survey.id}` });
    return text;
  }
  if (input.format === 'junit') return junitXml(data, tokens, gate);
  return summaryMarkdown(data, { dashboard: env.DASHBOARD_URL, api: env.API_URL, projectId: input.projectId }, gate);
}
