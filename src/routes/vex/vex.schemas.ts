import { z } from '@hono/zod-openapi';
import { ProjectParams, uuidParam } from '../../lib/schemas';

export { OptionalIdempotencyKeyHeader } from '../surveys/surveys.schemas';

/** The largest VEX document taken: about 25,000 OpenVEX statements, parsed well within an isolate's memory. */
export const MAX_VEX_BYTES = 8 * 1024 * 1024;

export const VexDocument = z.record(z.string(), z.unknown()).openapi('VexDocument', {
  description: 'A CycloneDX BOM with `vulnerabilities[].analysis` (specVersion 1.4 to 1.6, standalone VEX or inside a BOM), or an OpenVEX 0.2.0 document (checked against its JSON schema).',
});

const outcome = z.enum(['applied', 'already_in_place', 'superseded', 'not_matched']);

export const VexImportAnswer = z.object({
  format: z.enum(['cyclonedx', 'openvex']),
  spec_version: z.string(),
  source: z.object({ author: z.string().nullable(), document_id: z.string().nullable(), timestamp: z.string().nullable(), version: z.number().nullable() })
    .openapi({ description: 'Who made the document: later documents from the same author (else the same document id) supersede its statements.' }),
  statements: z.number().int().openapi({ description: 'Statements in the document (CycloneDX `vulnerabilities[]`, OpenVEX `statements[]`).' }),
  applied: z.number().int().openapi({ description: 'Claims (a statement about one product or component) that made or changed a decision.' }),
  already_in_place: z.number().int(),
  superseded: z.number().int().openapi({ description: 'Claims older than the same source\'s decision in place (OpenVEX\'s version and timestamp rules).' }),
  not_matched: z.number().int().openapi({ description: 'Claims about nothing this project surveyed, with the reason.' }),
  results: z.array(z.object({
    statement: z.number().int(), vulnerability: z.string(), product: z.string().nullable(), outcome,
    decision_id: z.uuid().optional(), reason: z.string().optional(),
  })).openapi({ description: 'What happened to each claim, in document order; at most 1,000.' }),
  results_truncated: z.boolean(),
}).openapi('VexImportAnswer');

export const VexExportParams = ProjectParams.extend({ compositionReportId: uuidParam('compositionReportId') });
export const VexExportQuery = z.object({
  format: z.enum(['cyclonedx', 'openvex']).default('cyclonedx').openapi({ param: { name: 'format', in: 'query' }, description: 'CycloneDX VEX 1.6 or OpenVEX 0.2.0.' }),
});
