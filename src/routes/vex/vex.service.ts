// VEX in and out (issue 23): the document is read here (src/vex/read.ts), matched and applied in the
// project object (src/project/vex-import.ts); an export is written here from what the object answers.
import { recordChange, type Changer } from '../../control/changes';
import { controlDb } from '../../control/db';
import { requireOrgProject } from '../../control/projects';
import type { Env } from '../../env';
import { sha256Hex } from '../../lib/ids';
import type { JsonObject } from '../../lib/json';
import { withProject } from '../../project/client';
import type { DecisionChange } from '../../project/decisions';
import type { vexFindings } from '../../project/vex-export';
import { readVex } from '../../vex/read';
import { cycloneDxVex, openVex } from '../../vex/write';
import { deciderOf } from '../decisions/decisions.service';

export async function importVex(env: Env, by: Changer, input: { document: unknown; idempotencyKey?: string }): Promise<JsonObject> {
  const document = readVex(input.document);
  const digest = await sha256Hex(JSON.stringify(input.document));
  const decidedBy = await deciderOf(env, by);
  const change = await withProject<DecisionChange>(env, by.projectId, (stub) => stub.importVex({ document, digest, decidedBy, idempotencyKey: input.idempotencyKey }));
  const answer = change.answer;
  if (!change.replayed) {
    await recordChange(env, by, 'vex.imported', {
      format: answer.format, source: answer.source, statements: answer.statements,
      applied: answer.applied, already_in_place: answer.already_in_place, superseded: answer.superseded, not_matched: answer.not_matched,
    } as JsonObject);
  }
  return answer;
}

export async function exportVex(env: Env, input: { orgId: string; projectId: string; reportId: string; format: 'cyclonedx' | 'openvex' }): Promise<{ body: string; fileName: string; contentType: string }> {
  const project = await requireOrgProject(controlDb(env.DB), input.orgId, input.projectId);
  const { subject, findings } = await withProject<ReturnType<typeof vexFindings>>(env, input.projectId, (stub) => stub.vexFindings(input.reportId));
  const document = { subject, author: project.name, id: `urn:uuid:${crypto.randomUUID()}`, timestamp: new Date().toISOString(), findings };
  if (input.format === 'openvex') return { body: JSON.stringify(openVex(document)), fileName: 'vex.openvex.json', contentType: 'application/json' };
  return { body: JSON.stringify(cycloneDxVex(document)), fileName: 'vex.cdx.json', contentType: 'application/vnd.cyclonedx+json' };
}
