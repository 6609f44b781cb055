// Streams one CycloneDX JSON document: components, crypto assets and dependency entries reach the
// sinks while the document is still arriving; only the element being parsed is ever held in memory.
import { JSONParser, TokenType, type ParsedElementInfo, type ParsedTokenInfo } from '@streamparser/json';
import type { Collector } from './collector';
import { flattenComponent, toDependency, toMetadataComponent, type MappedItem } from './components';
import { BundleError, errorText } from './errors';
import type { DocumentSummary, MetadataComponent } from './types';

export const SUPPORTED_SPEC_VERSIONS = ['1.2', '1.3', '1.4', '1.5', '1.6', '1.7'] as const;

/** Bytes handed to the JSON parser at once; items it completes are sent to the sinks in between. */
const PARSE_SLICE_BYTES = 64 * 1024;
/**
 * Components parsed before `bomFormat` and `specVersion` confirm the document (writers that sort
 * keys put `specVersion` last) are held back up to this many, then sent on trust.
 */
export const MAX_UNCONFIRMED_ITEMS = 5_000;

const PATHS = ['$.bomFormat', '$.specVersion', '$.serialNumber', '$.metadata.component', '$.components.*', '$.dependencies.*'];

export type DocumentOutcome = { kind: 'document'; summary: DocumentSummary } | { kind: 'not-cyclonedx'; reason: string };

export interface DocumentReaderOptions {
  path: string;
  collector: Collector;
  maxJsonElementBytes: number;
  /**
   * A lone document: invalid JSON is `unreadable` at once. In an archive an entry that fails before
   * it has shown itself to be CycloneDX is just not a BOM, and is skipped.
   */
  standalone: boolean;
}

export class CycloneDxReader {
  private readonly parser: JSONParser;
  private bomFormat: unknown;
  private specVersion: unknown;
  private serialNumber: string | undefined;
  private metadataComponent: MetadataComponent | undefined;
  private status: 'unconfirmed' | 'confirmed' | 'rejected' = 'unconfirmed';
  private rejection = '';
  /** Items were sent to the sinks before the document was confirmed. */
  private trusted = false;
  private parsed: MappedItem[] = [];
  private held: MappedItem[] = [];
  private components = 0;
  private cryptoAssets = 0;
  private dependencies = 0;
  private fed = 0;
  private depth = 0;
  /** Offset where the last element at depth <= 2 ended: everything after it is held in memory. */
  private boundary = 0;

  constructor(private readonly options: DocumentReaderOptions) {
    this.parser = new JSONParser({ paths: PATHS, keepStack: false, stringBufferSize: 64 * 1024 });
    this.parser.onValue = (info) => this.onValue(info);
    this.parser.onToken = (info) => this.onToken(info);
  }

  /** True once the document is known not to be CycloneDX: the caller may stop feeding it. */
  get rejected(): boolean {
    return this.status === 'rejected';
  }

  async write(chunk: Uint8Array): Promise<void> {
    for (let offset = 0; offset < chunk.byteLength && !this.rejected; offset += PARSE_SLICE_BYTES) {
      const slice = chunk.subarray(offset, offset + PARSE_SLICE_BYTES);
      this.parse(() => this.parser.write(slice));
      this.fed += slice.byteLength;
      if (this.fed - this.boundary > this.options.maxJsonElementBytes) {
        throw new BundleError(
          'archive_limits',
          `${this.options.path}: a single JSON element near byte ${this.boundary} is larger than ${this.options.maxJsonElementBytes / 1024 / 1024} MiB (limit on element size).`,
        );
      }
      await this.flush();
    }
  }

  async end(): Promise<DocumentOutcome> {
    if (!this.rejected) {
      if (this.fed === 0) this.reject('the file is empty');
      else if (!this.parser.isEnded) this.parse(() => this.parser.end());
    }
    if (!this.rejected && this.status === 'unconfirmed') {
      this.reject(this.bomFormat === undefined ? 'it has no bomFormat' : 'it has no specVersion');
    }
    await this.flush();
    if (this.rejected) return { kind: 'not-cyclonedx', reason: this.rejection };
    return {
      kind: 'document',
      summary: {
        path: this.options.path,
        specVersion: String(this.specVersion),
        ...(this.serialNumber ? { serialNumber: this.serialNumber } : {}),
        ...(this.metadataComponent ? { metadataComponent: this.metadataComponent } : {}),
        components: this.components,
        cryptoAssets: this.cryptoAssets,
        dependencies: this.dependencies,
      },
    };
  }

  private parse(step: () => void): void {
    try {
      step();
    } catch (error) {
      if (error instanceof BundleError) throw error;
      const reason = `it is not valid JSON (${errorText(error)})`;
      if (this.options.standalone || this.status === 'confirmed' || this.trusted) {
        throw new BundleError('unreadable', `${this.options.path}: the document is cut short or malformed: ${reason}.`);
      }
      this.reject(reason);
    }
  }

  private onToken({ token, offset }: ParsedTokenInfo): void {
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) this.depth++;
    else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) this.depth--;
    if (this.depth <= 2) this.boundary = offset;
  }

  private onValue({ value, key, stack }: ParsedElementInfo): void {
    if (this.rejected) return;
    if (stack.length === 1) {
      if (key === 'bomFormat') this.bomFormat = value;
      else if (key === 'specVersion') this.specVersion = typeof value === 'number' ? value.toFixed(1) : value;
      else if (key === 'serialNumber' && typeof value === 'string' && value) this.serialNumber = value;
      this.checkHeader();
      return;
    }
    const container = stack[1]?.key;
    if (container === 'components') {
      for (const item of flattenComponent(value, this.options.collector.stats)) this.parsed.push(item);
    } else if (container === 'dependencies') {
      this.dependencies++;
      const dependency = toDependency(value);
      if (dependency) this.parsed.push({ kind: 'dependency', item: dependency });
    } else if (container === 'metadata' && key === 'component') {
      this.metadataComponent = toMetadataComponent(value);
    }
  }

  private checkHeader(): void {
    if (this.bomFormat !== undefined && this.bomFormat !== 'CycloneDX') {
      this.reject(`its bomFormat is ${JSON.stringify(this.bomFormat)}, not "CycloneDX"`);
    } else if (this.specVersion !== undefined && !SUPPORTED_SPEC_VERSIONS.includes(this.specVersion as never)) {
      this.reject(`its specVersion ${JSON.stringify(this.specVersion)} is not one of ${SUPPORTED_SPEC_VERSIONS.join(', ')}`);
    } else if (this.bomFormat !== undefined && this.specVersion !== undefined) {
      this.status = 'confirmed';
    }
  }

  private reject(reason: string): void {
    if (this.trusted) {
      // Its components already reached the sinks: the bundle as a whole cannot be trusted.
      throw new BundleError('not_cyclonedx', `${this.options.path} listed components before its header and then turned out not to be CycloneDX: ${reason}.`);
    }
    this.status = 'rejected';
    this.rejection = reason;
    this.parsed = [];
    this.held = [];
  }

  private async flush(): Promise<void> {
    if (this.rejected) return;
    if (this.status === 'unconfirmed' && !this.trusted) {
      this.held.push(...this.parsed);
      this.parsed = [];
      if (this.held.length <= MAX_UNCONFIRMED_ITEMS) return;
      this.trusted = true;
    }
    const batch = this.held.length ? this.held.concat(this.parsed) : this.parsed;
    this.held = [];
    this.parsed = [];
    for (const mapped of batch) {
      if (mapped.kind === 'component') {
        this.components++;
        await this.options.collector.component(mapped.item, this.options.path);
      } else if (mapped.kind === 'cryptoAsset') {
        this.cryptoAssets++;
        await this.options.collector.cryptoAsset(mapped.item, this.options.path);
      } else {
        await this.options.collector.dependency(mapped.item, this.options.path);
      }
    }
  }
}
