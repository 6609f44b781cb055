// Groups of a section's entries, so a long section reads as a short list of decisions: the entries that
// share what a reader acts on are shown under one heading that says it once, with their count, and
// each entry keeps only what is its own (its name and where it is). pqc-inventory: the algorithm that
// decides, the verdict (section, deadline), the explanation and the replacement; composition: the
// component, its installed version and its fix version. Plain functions over stored entries.
import type { JsonObject } from '../lib/json';
import type { Cell, GroupModel } from './model';

/** What a pqc-inventory entry is judged by, the same for every entry it groups with. */
export interface PqcVerdict {
  /** The algorithm that decides (`RSA-2048-SHA1`); the entry's own name when nothing else decides. */
  algorithm: string;
  /** Its part in the entry (`signature`, `key`, `cipher suite ...`), when the entry is made of parts. */
  role: string | null;
  /** The explanation without the entry's own name in front. */
  explanation: string | null;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

// A certificate, protocol or key made of parts is explained as `<name>: <part> (<role>) decides. <why>`
// (or `... is not known ...` when unclassified): the part and the why are what it shares with others.
const DECIDED = /^(.+?) \(([^()]*)\) decides\. ([\s\S]+)$/;
const UNKNOWN_PART = /^(.+?) \(([^()]*)\) (is not known[\s\S]*)$/;
/** A key is named after its algorithm and kind (`RSA-2048 public-key`); it shares the algorithm's verdict. */
const KEY_KIND = / (?:public|private|secret)-key$/;

/** The algorithm, role and explanation an entry shares with the others of its group. */
export function pqcVerdict(entry: JsonObject): PqcVerdict {
  const name = text(entry.name) ?? '';
  const explanation = text(entry.explanation);
  // The analysis (1.2.0 on) says what decided a composite and why, without the entry's own name.
  const verdict = text(entry.verdict);
  if (verdict) return { algorithm: text(entry.algorithm) ?? name, role: text(entry.decidedBy), explanation: verdict };
  // Entries stored before: the explanation `<name>: <part> (<role>) decides. <why>` is read back.
  const rest = explanation !== null && name !== '' && explanation.startsWith(`${name}: `) ? explanation.slice(name.length + 2) : null;
  const decided = rest === null ? null : DECIDED.exec(rest);
  if (decided) return { algorithm: decided[1]!, role: decided[2]!, explanation: decided[3]! };
  const unknown = rest === null ? null : UNKNOWN_PART.exec(rest);
  if (unknown) return { algorithm: unknown[1]!, role: unknown[2]!, explanation: rest };
  return { algorithm: text(entry.algorithm) ?? (name.replace(KEY_KIND, '') || name || 'unnamed'), role: null, explanation };
}

/** A group being filled: the model's group and what orders it. */
interface Forming {
  group: GroupModel;
  /** Sorts the most urgent first: the earliest deadline (or a stand-in), whether a fix is known. */
  urgency: string;
  score: number;
  occurrences: number;
}

/** A section's entries put in groups as they come; `groups()` answers them in order once all came. */
export interface Grouper {
  add(entry: JsonObject): void;
  groups(): GroupModel[];
}

type RowOrder = (a: Record<string, Cell>, b: Record<string, Cell>) => number;

/**
 * Items in groups of equal `keyOf`, in first-seen order; `start` makes a group of its first item, `join`
 * hears every item. Each group keeps its first `keep` rows in `order` (all when Infinity): a section too
 * large to hold keeps a digest, sorted and cut whenever twice as many came (a stable sort, so the rows
 * kept are exactly the first of the full sort).
 */
class Collector<T> {
  private readonly forming = new Map<string, Forming>();

  constructor(
    private readonly keyOf: (item: T) => string,
    private readonly start: (item: T) => Omit<Forming, 'occurrences'>,
    private readonly rowOf: (item: T) => Record<string, Cell>,
    private readonly order: RowOrder,
    private readonly keep: number,
    private readonly join?: (forming: Forming, item: T) => void,
  ) {}

  add(item: T): void {
    const key = this.keyOf(item);
    let forming = this.forming.get(key);
    if (!forming) {
      forming = { ...this.start(item), occurrences: 0 };
      this.forming.set(key, forming);
    }
    const row = this.rowOf(item);
    const rows = forming.group.rows;
    rows.push(row);
    forming.group.total++;
    forming.occurrences += typeof row.occurrences === 'number' ? row.occurrences : 1;
    this.join?.(forming, item);
    if (rows.length >= 2 * this.keep) this.cut(rows);
  }

  /** Every group, its rows in order. */
  finish(): Forming[] {
    for (const { group } of this.forming.values()) this.cut(group.rows);
    return [...this.forming.values()];
  }

  private cut(rows: Record<string, Cell>[]): void {
    rows.sort(this.order);
    if (rows.length > this.keep) rows.length = this.keep;
  }
}

const byNumber = (key: string) => (a: Record<string, Cell>, b: Record<string, Cell>) => Number(b[key] ?? -1) - Number(a[key] ?? -1);
const byText = (key: string) => (a: Record<string, Cell>, b: Record<string, Cell>) => String(a[key] ?? '').localeCompare(String(b[key] ?? ''));

/**
 * A pqc-inventory section's entries grouped by verdict: the deciding algorithm, the section, the
 * deadline, the explanation and the replacement. The most urgent groups first (a past deadline before a
 * later one; in `red` a missing date means disallowed already), then the largest; in each group the
 * entries seen most often first. Each group keeps its first `keep` rows.
 */
export function pqcGrouper(section: string, rowOf: (entry: JsonObject, verdict: PqcVerdict) => Record<string, Cell>, keep = Infinity): Grouper {
  type Judged = { entry: JsonObject; verdict: PqcVerdict };
  const keyOf = ({ entry, verdict }: Judged) => [verdict.algorithm, verdict.explanation, text(entry.replacement), text(entry.deadline)].join('\u0000');
  const start = ({ entry, verdict }: Judged) => {
    const deadline = text(entry.deadline)?.slice(0, 10) ?? null;
    const replacement = text(entry.replacement);
    const facts = [
      ...(deadline ? [{ label: 'Deadline', value: deadline }] : []),
      ...(replacement ? [{ label: 'Move to', value: replacement }] : []),
    ];
    return {
      group: { title: verdict.algorithm, detail: verdict.role, facts, explanation: verdict.explanation, rows: [], total: 0 },
      urgency: deadline ?? (section === 'red' ? '0000' : '9999'),
      score: 0,
    };
  };
  // The role (`signature`, `key`) is said only when every entry of the group has it in that role.
  const join = (forming: Forming, { verdict }: Judged) => {
    if (forming.group.detail !== verdict.role) forming.group.detail = null;
  };
  const order: RowOrder = (a, b) => byNumber('occurrences')(a, b) || byText('name')(a, b);
  const collector = new Collector<Judged>(keyOf, start, ({ entry, verdict }) => rowOf(entry, verdict), order, keep, join);
  return {
    add: (entry) => collector.add({ entry, verdict: pqcVerdict(entry) }),
    groups: () => {
      const groups = collector.finish();
      groups.sort((a, b) => a.urgency.localeCompare(b.urgency) || b.group.total - a.group.total || b.occurrences - a.occurrences || a.group.title.localeCompare(b.group.title));
      return groups.map((forming) => forming.group);
    },
  };
}

/** A pqc-inventory section's entries grouped by verdict (pqcGrouper), every row kept. */
export function pqcGroups(section: string, entries: JsonObject[], rowOf: (entry: JsonObject, verdict: PqcVerdict) => Record<string, Cell>): GroupModel[] {
  const grouper = pqcGrouper(section, rowOf);
  for (const entry of entries) grouper.add(entry);
  return grouper.groups();
}

/**
 * A composition section's entries grouped by component (name, installed version, package URL) and its
 * fix version: one upgrade answers every advisory of the group. The highest-scored groups first, then
 * those with a fix, then the largest; in each group the highest-scored advisories first. Each group
 * keeps its first `keep` rows.
 */
export function compositionGrouper(rowOf: (entry: JsonObject) => Record<string, Cell>, keep = Infinity): Grouper {
  const keyOf = (entry: JsonObject) => [text(entry.name), text(entry.version), text(entry.purl), text(entry.fix_version)].join('\u0000');
  const start = (entry: JsonObject) => {
    const fix = text(entry.fix_version);
    const purl = text(entry.purl);
    return {
      group: {
        title: [text(entry.name) ?? text(entry.purl) ?? 'unnamed', text(entry.version)].filter(Boolean).join(' '),
        detail: purl,
        // The fix version says what to do: upgrading to it answers every advisory of the group.
        facts: [{ label: 'Fix version', value: fix ?? 'none known' }, { label: 'Highest score', value: 'none' }],
        explanation: null,
        rows: [],
        total: 0,
      },
      urgency: fix ? '0' : '1',
      score: -1,
    };
  };
  const order: RowOrder = (a, b) => byNumber('score')(a, b) || byText('advisory')(a, b);
  const collector = new Collector<JsonObject>(keyOf, start, rowOf, order, keep);
  return {
    add: (entry) => collector.add(entry),
    groups: () => {
      const groups = collector.finish();
      for (const forming of groups) {
        const highest = forming.group.rows[0]?.score;
        forming.score = typeof highest === 'number' ? highest : -1;
        if (typeof highest === 'number') forming.group.facts[1]!.value = highest.toFixed(1);
      }
      groups.sort((a, b) => b.score - a.score || a.urgency.localeCompare(b.urgency) || b.group.total - a.group.total || a.group.title.localeCompare(b.group.title));
      return groups.map((forming) => forming.group);
    },
  };
}

/** A composition section's entries grouped by component and fix version (compositionGrouper), every row kept. */
export function compositionGroups(entries: JsonObject[], rowOf: (entry: JsonObject) => Record<string, Cell>): GroupModel[] {
  const grouper = compositionGrouper(rowOf);
  for (const entry of entries) grouper.add(entry);
  return grouper.groups();
}
