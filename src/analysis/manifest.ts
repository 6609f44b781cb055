// The optional manifest.json at an archive's root.
import { z } from 'zod';
import { BundleError, errorText } from './errors';

export const ManifestSchema = z.object({
  subject: z.string().trim().min(1).max(512).optional(),
  tag: z.string().trim().min(1).max(256).optional(),
  ci: z.object({ runId: z.string().max(256).optional(), url: z.string().max(2048).optional() }).optional(),
  tool: z.object({ name: z.string().min(1).max(256), version: z.string().min(1).max(256) }).optional(),
  runtime: z.boolean().optional(),
});

export type Manifest = z.infer<typeof ManifestSchema>;

/** Where the first problem of a zod failure is, as `a.b: message`. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
  return `${where}${issue.message}`;
}

/** Parses and validates manifest.json; unknown fields are ignored. */
export function parseManifest(text: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new BundleError('invalid_manifest', `manifest.json is not valid JSON: ${errorText(error)}.`);
  }
  const result = ManifestSchema.safeParse(value);
  if (!result.success) {
    throw new BundleError(
      'invalid_manifest',
      `manifest.json is invalid (${describeIssue(result.error)}). Expected { subject?, tag?, ci?: { runId?, url? }, tool?: { name, version }, runtime? }.`,
    );
  }
  return result.data;
}
