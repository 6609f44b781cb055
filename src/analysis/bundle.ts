// The bundle reader's entry point: what the analysis consumer calls with the R2 object's body.
import { readTarGz, readZip } from './archive';
import { Collector } from './collector';
import { BundleContents } from './entries';
import { BundleError, SinkFailure, SourceFailure, errorText } from './errors';
import { ArchiveBudget, DEFAULT_LIMITS, type BundleLimits } from './limits';
import { ByteSource, sniffFormat } from './source';
import { subjectFromDocuments } from './subject';
import type { BundleFormat, BundleSinks, BundleSummary } from './types';

export interface ReadBundleOptions extends BundleSinks, Partial<BundleLimits> {
  /** Name used for a single-document bundle in the summary and in messages. */
  fileName?: string;
}

/**
 * Reads a bundle (CycloneDX JSON, .tar.gz or .zip, told apart by its first bytes) as a stream,
 * calling the sinks in document order, and answers what it held. Bad input throws BundleError;
 * an error thrown by a sink or by the stream itself (a failed R2 read) is rethrown as it was.
 */
export async function readBundle(stream: ReadableStream<Uint8Array>, options: ReadBundleOptions = {}): Promise<BundleSummary> {
  const limits: BundleLimits = {
    maxEntries: options.maxEntries ?? DEFAULT_LIMITS.maxEntries,
    maxUncompressedBytes: options.maxUncompressedBytes ?? DEFAULT_LIMITS.maxUncompressedBytes,
    maxCompressionRatio: options.maxCompressionRatio ?? DEFAULT_LIMITS.maxCompressionRatio,
    maxJsonElementBytes: options.maxJsonElementBytes ?? DEFAULT_LIMITS.maxJsonElementBytes,
  };
  const source = new ByteSource(stream);
  const contents = new BundleContents(new Collector(options), limits);
  let format: BundleFormat | undefined;
  try {
    format = await sniffFormat(source);
    if (format === 'cyclonedx-json') await readDocument(source, contents, options.fileName ?? 'bundle.json');
    else if (format === 'tar.gz') await readTarGz(source, new ArchiveBudget(limits), contents);
    else await readZip(source, new ArchiveBudget(limits), contents);
  } catch (error) {
    await source.cancel(error);
    if (error instanceof SinkFailure || error instanceof SourceFailure) throw error.cause;
    if (error instanceof BundleError) throw error;
    // Nothing else should get here; if it does, it is still the bundle's fault, not a crash.
    throw new BundleError(format === 'cyclonedx-json' ? 'unreadable' : 'corrupt_archive', `The bundle could not be read: ${errorText(error)}.`);
  }
  return summarize(format, contents);
}

async function readDocument(source: ByteSource, contents: BundleContents, path: string): Promise<void> {
  const document = contents.openDocument(path, true);
  for (let chunk = await source.read(); chunk; chunk = await source.read()) {
    await document.write(chunk);
    if (document.satisfied) break;
  }
  await document.end();
  const skipped = contents.skipped[0];
  if (skipped) throw new BundleError('not_cyclonedx', `${path} is JSON but not a CycloneDX 1.2-1.7 document: ${skipped.reason}.`);
}

function summarize(format: BundleFormat, contents: BundleContents): BundleSummary {
  const { collector, documents } = contents;
  if (documents.length === 0 && collector.observations === 0) {
    if (contents.skippedEntries > 0) {
      const reasons = contents.skipped
        .slice(0, 3)
        .map((s) => `${s.path}: ${s.reason}`)
        .join('; ');
      throw new BundleError('not_cyclonedx', `None of the archive's ${contents.skippedEntries} JSON entries is a CycloneDX 1.2-1.7 document (${reasons}).`);
    }
    throw new BundleError('empty', 'The archive holds no CycloneDX document (*.json) and no runtime observations (runtime/*.jsonl).');
  }
  return {
    format,
    manifest: contents.manifest,
    documents,
    components: collector.components,
    cryptoAssets: collector.cryptoAssets,
    observations: collector.observations,
    dependencies: documents.reduce((sum, d) => sum + d.dependencies, 0),
    invalidPurls: collector.stats.invalidPurls,
    skippedComponents: collector.stats.skippedComponents,
    skippedEntries: contents.skippedEntries,
    skipped: contents.skipped,
    subjectFromDocuments: subjectFromDocuments(documents),
  };
}

export { BUNDLE_FAILURE_CLASSES, BundleError, type BundleFailureClass } from './errors';
export {
  DEFAULT_LIMITS,
  MAX_ARCHIVE_ENTRIES,
  MAX_COMPRESSION_RATIO,
  MAX_JSON_ELEMENT_BYTES,
  MAX_MANIFEST_BYTES,
  MAX_RUNTIME_LINE_BYTES,
  MAX_UNCOMPRESSED_BYTES,
  RATIO_GRACE_BYTES,
  type BundleLimits,
} from './limits';
export type { Manifest } from './manifest';
export { subjectOf, type SubjectInputs } from './subject';
export { SUPPORTED_SPEC_VERSIONS } from './cyclonedx';
export { CRYPTO_ASSET_TYPES } from './types';
export type * from './types';
