// Decides what each archive entry is (manifest, CycloneDX document, runtime records, other) and
// gathers what the entries say into the bundle summary.
import type { Collector } from './collector';
import { CycloneDxReader } from './cyclonedx';
import { BundleError } from './errors';
import { MAX_MANIFEST_BYTES, type BundleLimits } from './limits';
import { parseManifest, type Manifest } from './manifest';
import { RuntimeReader } from './runtime';
import type { DocumentSummary, SkippedEntry } from './types';

/** How many skipped entries the summary lists by name. */
const LISTED_SKIPS = 20;

export interface EntryHandler {
  write(chunk: Uint8Array): Promise<void>;
  end(): Promise<void>;
  /** The handler needs no more bytes of this entry (a document found not to be CycloneDX). */
  readonly satisfied: boolean;
}

export class BundleContents {
  manifest: Manifest | null = null;
  readonly documents: DocumentSummary[] = [];
  readonly skipped: SkippedEntry[] = [];
  skippedEntries = 0;
  private manifestSeen = false;

  constructor(
    readonly collector: Collector,
    private readonly limits: BundleLimits,
  ) {}

  /** The handler for an entry at `path` (already checked and normalized), or null to skip it. */
  open(path: string): EntryHandler | null {
    const lower = path.toLowerCase();
    if (lower === 'manifest.json') return this.openManifest();
    if (/^runtime\/[^/]+\.jsonl$/.test(lower)) return this.openRuntime(path);
    if (lower.endsWith('.json')) return this.openDocument(path, false);
    return null;
  }

  openDocument(path: string, standalone: boolean): EntryHandler {
    const reader = new CycloneDxReader({ path, collector: this.collector, maxJsonElementBytes: this.limits.maxJsonElementBytes, standalone });
    return {
      write: (chunk) => reader.write(chunk),
      end: async () => {
        const outcome = await reader.end();
        if (outcome.kind === 'document') this.documents.push(outcome.summary);
        else this.skip(path, outcome.reason);
      },
      get satisfied() {
        return reader.rejected;
      },
    };
  }

  skip(path: string, reason: string): void {
    this.skippedEntries++;
    if (this.skipped.length < LISTED_SKIPS) this.skipped.push({ path, reason });
  }

  private openManifest(): EntryHandler {
    if (this.manifestSeen) throw new BundleError('invalid_manifest', 'The archive holds more than one manifest.json.');
    this.manifestSeen = true;
    const parts: Uint8Array[] = [];
    let length = 0;
    return {
      write: async (chunk) => {
        length += chunk.byteLength;
        if (length > MAX_MANIFEST_BYTES) {
          throw new BundleError('invalid_manifest', `manifest.json is larger than ${MAX_MANIFEST_BYTES / 1024} KiB.`);
        }
        parts.push(chunk.slice());
      },
      end: async () => {
        const bytes = new Uint8Array(length);
        let offset = 0;
        for (const part of parts) {
          bytes.set(part, offset);
          offset += part.byteLength;
        }
        let text: string;
        try {
          text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
        } catch {
          throw new BundleError('invalid_manifest', 'manifest.json is not UTF-8 text.');
        }
        this.manifest = parseManifest(text);
      },
      satisfied: false,
    };
  }

  private openRuntime(path: string): EntryHandler {
    const reader = new RuntimeReader(path, this.collector);
    return { write: (chunk) => reader.write(chunk), end: () => reader.end(), satisfied: false };
  }
}
