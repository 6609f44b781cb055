// Limits that keep a hostile or broken bundle from exhausting a Worker (128 MB of memory, bounded
// CPU). Every limit is checked while bytes flow, so a bomb is stopped after a few megabytes.
import { BundleError } from './errors';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** Most entries (files, folders, links) an archive may hold. */
export const MAX_ARCHIVE_ENTRIES = 10_000;
/**
 * Most bytes an archive may expand to (the tar stream for .tar.gz, all entries for .zip): 200 MiB, as
 * much as a plain document may be (`MAX_BUNDLE_BYTES`). A 204 MB SBOM is the largest survey
 * `bench:analysis` measured near the isolate's memory; a 111 MB archive of 1 GB reached 195 MiB, past
 * the 128 MB a deployed isolate has (docs/decisions.md, "Memory of a survey").
 */
export const MAX_UNCOMPRESSED_BYTES = 200 * MiB;
/** Highest ratio of expanded to compressed bytes over the whole archive. */
export const MAX_COMPRESSION_RATIO = 200;
/**
 * The ratio is enforced once this much has been expanded: the first blocks of a tar (headers,
 * padding) compress far better than the archive as a whole.
 */
export const RATIO_GRACE_BYTES = 1 * MiB;
/**
 * Largest single JSON element below the top two levels of a document (one component, one
 * dependency, one string). Such an element is built in memory whole, so it must stay small.
 */
export const MAX_JSON_ELEMENT_BYTES = 16 * MiB;
/** Largest manifest.json. */
export const MAX_MANIFEST_BYTES = 64 * 1024;
/** Longest line of a runtime/*.jsonl file. */
export const MAX_RUNTIME_LINE_BYTES = 64 * 1024;

export interface BundleLimits {
  maxEntries: number;
  maxUncompressedBytes: number;
  maxCompressionRatio: number;
  maxJsonElementBytes: number;
}

export const DEFAULT_LIMITS: BundleLimits = {
  maxEntries: MAX_ARCHIVE_ENTRIES,
  maxUncompressedBytes: MAX_UNCOMPRESSED_BYTES,
  maxCompressionRatio: MAX_COMPRESSION_RATIO,
  maxJsonElementBytes: MAX_JSON_ELEMENT_BYTES,
};

function size(bytes: number): string {
  if (bytes >= GiB) return `${+(bytes / GiB).toFixed(2)} GiB`;
  if (bytes >= MiB) return `${+(bytes / MiB).toFixed(2)} MiB`;
  return `${bytes} bytes`;
}

function limitError(message: string): BundleError {
  return new BundleError('archive_limits', message);
}

/** Counts what an archive costs as it is read and throws `archive_limits` past any limit. */
export class ArchiveBudget {
  compressedBytes = 0;
  uncompressedBytes = 0;
  announcedBytes = 0;
  entries = 0;

  constructor(private readonly limits: BundleLimits) {}

  consumed(bytes: number): void {
    this.compressedBytes += bytes;
  }

  produced(bytes: number): void {
    this.uncompressedBytes += bytes;
    const { maxUncompressedBytes, maxCompressionRatio } = this.limits;
    if (this.uncompressedBytes > maxUncompressedBytes) {
      throw limitError(`The archive expands to more than ${size(maxUncompressedBytes)} (limit on total uncompressed size). Split it into smaller bundles.`);
    }
    if (this.uncompressedBytes > RATIO_GRACE_BYTES && this.uncompressedBytes > maxCompressionRatio * this.compressedBytes) {
      throw limitError(
        `The archive expands more than ${maxCompressionRatio}:1 (limit on compression ratio; ${size(this.compressedBytes)} became ${size(this.uncompressedBytes)} and counting). This looks like a decompression bomb.`,
      );
    }
  }

  /** An entry whose header announces its size: refuse it before expanding it. */
  announced(path: string, bytes: number): void {
    this.announcedBytes += bytes;
    if (this.announcedBytes > this.limits.maxUncompressedBytes) {
      throw limitError(`Entry "${path}" (${size(bytes)}) would take the archive past ${size(this.limits.maxUncompressedBytes)} (limit on total uncompressed size).`);
    }
  }

  /** Counts an entry and returns its path without `./` and empty segments. */
  entry(name: string): string {
    this.entries += 1;
    if (this.entries > this.limits.maxEntries) {
      throw limitError(`The archive holds more than ${this.limits.maxEntries} entries (limit on entry count).`);
    }
    return entryPath(name);
  }
}

/** Refuses names that would leave the archive's root if extracted: `..` segments and absolute paths. */
export function entryPath(name: string): string {
  if (name.includes('\0')) throw limitError(`Entry name ${JSON.stringify(name)} contains a NUL character.`);
  if (/^([/\\]|[A-Za-z]:)/.test(name)) {
    throw limitError(`Entry "${name}" has an absolute path; entries must be relative to the archive root.`);
  }
  const segments = name.split(/[/\\]/);
  if (segments.includes('..')) {
    throw limitError(`Entry "${name}" contains "..": entries must stay inside the archive root.`);
  }
  const path = segments.filter((s) => s !== '' && s !== '.').join('/');
  return /[/\\]$/.test(name) && path ? `${path}/` : path;
}
