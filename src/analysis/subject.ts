// Which subject a survey is about, by the rule of the specification.
import type { Manifest } from './manifest';
import type { DocumentSummary } from './types';

export interface SubjectInputs {
  /** The survey's `target`, as the uploader gave it. */
  target?: string | null;
  manifest?: Pick<Manifest, 'subject'> | null;
  documents?: Pick<DocumentSummary, 'metadataComponent'>[];
}

function named(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** The first document that names its `metadata.component` (documents in archive order). */
export function subjectFromDocuments(documents: Pick<DocumentSummary, 'metadataComponent'>[]): string | null {
  for (const document of documents) {
    const name = named(document.metadataComponent?.name);
    if (name) return name;
  }
  return null;
}

/**
 * The survey's target, else the manifest's subject, else the first BOM's metadata.component.name;
 * null when none names one (the consumer then fails the survey with `no_subject`).
 */
export function subjectOf({ target, manifest, documents = [] }: SubjectInputs): string | null {
  return named(target) ?? named(manifest?.subject) ?? subjectFromDocuments(documents);
}
