// The report pages' pieces: the headline figures, the section tabs, a table of entries (a section's
// page or search matches), the search form (htmx swaps the results in as one types), the downloads,
// the render status, the provenance and the comparison lists.
import type { Child } from 'hono/jsx';
import { Empty, Pager, Table, Tag, Time } from '../../components/common';
import { hx } from '../../components/shell';
import { formatCount } from '../../format';
import { DecisionTag, decisionHref } from '../triage';
import {
  cellsOf, changesOf, plural, COLUMN_LABELS, figuresOf, FORMAT_LABELS, formatBytes, humanize, listSections, PAGE_ROWS, paths, REASON_TEXT, RENDERED_FORMATS, withQuery,
  type Brief, type Download, type Entry, type Job, type Moved, type Provenance, type ReportType, type StaleDocument, type Summary,
} from './shape';

export const RESULTS_ID = 'report-results';

export function Figures(props: { summary: Summary; projectId: string }) {
  const figures = figuresOf(props.summary.headline);
  const changes = changesOf(props.summary.headline);
  return (
    <section aria-labelledby="figures-title">
      <h2 id="figures-title">Summary</h2>
      <div class="grid">
        {figures.map((f) => (
          <div class="panel">
            <p class="figure-label">{f.label}</p>
            <p class="figure">{typeof f.value === 'number' ? formatCount(f.value) : f.value ?? 'none'}</p>
            {f.parts ? (
              <ul class="figure-parts">
                {f.parts.map((p) => <li>{p.label}: <strong>{formatCount(p.value)}</strong></li>)}
              </ul>
            ) : null}
          </div>
        ))}
      </div>
      {changes ? (
        <p>
          {changes.previousSurveyId === null ? 'This is the subject\'s first survey of this kind.'
            : changes.parts.length ? `Since the subject's previous survey: ${changes.parts.join(', ')}.` : 'Nothing changed since the subject\'s previous survey.'}
          {changes.previousReportId ? <> <a href={withQuery(paths(props.projectId, props.summary.report_id).compare, { with: changes.previousReportId })}>Compare with the previous report</a></> : null}
        </p>
      ) : null}
    </section>
  );
}

/** The list sections as links with their totals; the open one marked current. */
export function SectionTabs(props: { projectId: string; summary: Summary; open: string | null; searching: boolean }) {
  const { report } = paths(props.projectId, props.summary.report_id);
  return (
    <nav class="tabs" aria-label="Sections">
      {listSections(props.summary).map((s) => (
        <a href={withQuery(report, { section: s.name })} aria-current={!props.searching && s.name === props.open ? 'page' : undefined}>
          <Tag value={s.name} label={humanize(s.name)} /> <span class="tab-count">{formatCount(s.total ?? 0)}</span>
        </a>
      ))}
    </nav>
  );
}

/** The search form: a plain GET form; with htmx the matches replace the results as one types (debounced). */
export function SearchForm(props: { projectId: string; reportId: string; nonce: string; q: string; section: string | null }) {
  const { report } = paths(props.projectId, props.reportId);
  const attributes = hx(props.nonce, {
    'hx-get': report, 'hx-trigger': 'input changed delay:300ms, submit', 'hx-target': `#${RESULTS_ID}`, 'hx-swap': 'innerHTML', 'hx-push-url': 'true',
  });
  return (
    <form method="get" action={report} role="search" class="toolbar" {...attributes}>
      {props.section ? <input type="hidden" name="section" value={props.section} /> : null}
      <div class="field">
        <label class="label" for="report-search">Search every section</label>
        <input class="input" id="report-search" type="search" name="q" value={props.q} maxlength={200} autocomplete="off" aria-describedby="report-search-hint" />
        <p class="hint" id="report-search-hint">A name, package URL, advisory id or bom-ref; at most 200 matches, most important first.</p>
      </div>
      <button type="submit" class="btn btn-secondary">Search</button>
    </form>
  );
}

/** The decision an entry carries (report entries are marked when read, docs/triage.md). */
function decisionOf(entry: Entry): { id: string; state: string; suppressed: boolean } | null {
  const d = (entry as Record<string, unknown>).decision as { id?: unknown; state?: unknown; suppressed?: unknown } | undefined;
  return d && typeof d.id === 'string' && typeof d.state === 'string' ? { id: d.id, state: d.state, suppressed: d.suppressed === true } : null;
}

function EntryTable(props: { projectId: string; type: ReportType; entries: Entry[]; caption: Child; withSection?: boolean }) {
  const labels = COLUMN_LABELS[props.type] ?? COLUMN_LABELS['pqc-inventory'];
  const rows = props.entries.map((e) => ({ entry: e, cells: cellsOf(props.type, e), decision: decisionOf(e) }));
  // A column for decisions only where some entry on the page carries one (docs/triage.md).
  const decided = rows.some((r) => r.decision);
  return (
    <div class="entries">
    <Table
      caption={props.caption}
      rows={rows}
      columns={[
        { label: 'Name', cell: (r) => <><span class="wrap">{r.cells.name}</span>{r.cells.ref && r.cells.ref !== r.cells.name ? <><br /><span class="mono small muted wrap">{r.cells.ref}</span></> : null}</> },
        ...(props.withSection ? [{ label: 'Section', cell: (r: (typeof rows)[number]) => <Tag value={r.entry.section} label={humanize(r.entry.section)} /> }] : []),
        { label: labels.kind, cell: (r) => <span class="wrap">{r.cells.kind ?? ''}</span> },
        { label: labels.extra, cell: (r) => r.cells.extra ?? '' },
        { label: labels.detail, cell: (r) => <span class="small wrap">{r.cells.detail ?? ''}</span> },
        ...(props.type === 'cbom' ? [] : [{ label: labels.count, numeric: true, cell: (r: (typeof rows)[number]) => r.cells.count ?? '' }]),
        ...(decided ? [{ label: 'Decision', cell: (r: (typeof rows)[number]) => (r.decision ? <DecisionTag state={r.decision.state} suppressed={r.decision.suppressed} href={decisionHref(props.projectId, r.decision.id)} /> : <span class="muted">undecided</span>) }] : []),
      ]}
    />
    </div>
  );
}

/** A page of a section: its rows, where they are in the section's total, and the links on. */
export function SectionResults(props: { projectId: string; summary: Summary; section: string; entries: Entry[]; offset: number; total: number }) {
  const { report } = paths(props.projectId, props.summary.report_id);
  const name = humanize(props.section);
  if (!props.total) {
    return <Empty><p>The {name.toLowerCase()} section is empty: this report found nothing that belongs in it.</p></Empty>;
  }
  const first = props.offset + 1;
  const last = props.offset + props.entries.length;
  const at = (offset: number) => withQuery(report, { section: props.section, offset: offset || null });
  return (
    <>
      <EntryTable projectId={props.projectId} type={props.summary.type} entries={props.entries} caption={<>{name}: {plural(props.total, 'entry', 'entries')}</>} />
      <Pager
        label={`Pages of the ${name.toLowerCase()} section`}
        shown={props.entries.length ? `${formatCount(first)}–${formatCount(last)} of ${formatCount(props.total)} in ${name.toLowerCase()}` : `Nothing from ${formatCount(first)} on; the section has ${formatCount(props.total)}`}
        previous={props.offset > 0 ? at(Math.max(0, props.offset - PAGE_ROWS)) : null}
        next={last < props.total ? at(props.offset + PAGE_ROWS) : null}
      />
    </>
  );
}

/** Search matches (at most 200 from the API), a hundred at a time. */
export function SearchResults(props: { projectId: string; summary: Summary; q: string; matches: Entry[]; offset: number; section: string | null }) {
  const { report } = paths(props.projectId, props.summary.report_id);
  const shown = props.matches.slice(props.offset, props.offset + PAGE_ROWS);
  const count = props.matches.length;
  const capped = count >= 200 ? ' (the first 200, most important first: narrow the search to see others)' : '';
  const at = (offset: number) => withQuery(report, { q: props.q, section: props.section, offset: offset || null });
  return (
    <>
      <p role="status">{count ? `${formatCount(count)} ${count === 1 ? 'match' : 'matches'} for “${props.q}”${capped}.` : `No entry matches “${props.q}”.`}</p>
      {count ? (
        <>
          <EntryTable projectId={props.projectId} type={props.summary.type} entries={shown} withSection caption={<>Matches for “{props.q}”</>} />
          <Pager
            label="Pages of the matches"
            shown={`${formatCount(props.offset + 1)}–${formatCount(props.offset + shown.length)} of ${formatCount(count)}`}
            previous={props.offset > 0 ? at(Math.max(0, props.offset - PAGE_ROWS)) : null}
            next={props.offset + PAGE_ROWS < count ? at(props.offset + PAGE_ROWS) : null}
          />
        </>
      ) : (
        <Empty><p>Try part of a name (RSA, SHA-1), a package URL, an advisory id (CVE-…, GHSA-…) or <a href={withQuery(report, { section: props.section })}>go back to the section</a>.</p></Empty>
      )}
    </>
  );
}

/** The downloads ready now, each streamed through the dashboard; the formats still to be rendered said so. */
export function Downloads(props: { projectId: string; summary: Summary; formats: string[] }) {
  const p = paths(props.projectId, props.summary.report_id);
  const ready: Download[] = [...RENDERED_FORMATS.filter((f) => props.formats.includes(f)), 'json'];
  if (props.summary.type !== 'pqc-inventory') ready.push('cyclonedx');
  const waiting = RENDERED_FORMATS.filter((f) => !props.formats.includes(f));
  return (
    <section aria-labelledby="downloads-title">
      <h2 id="downloads-title">Downloads</h2>
      <ul class="downloads">
        {ready.map((format) => <li><a href={p.download(format)} download="">{FORMAT_LABELS[format]}</a></li>)}
      </ul>
      {waiting.length ? <p class="muted">Not rendered yet: {waiting.map((f) => FORMAT_LABELS[f]).join(', ')}.</p> : null}
      <p><a href={p.documents}>Render status, provenance and stale documents</a> · <a href={p.compare}>Compare with another report</a></p>
    </section>
  );
}

/** Each rendered format's latest render job, and whether a document is there to download. */
export function RenderTable(props: { projectId: string; reportId: string; status: Map<string, { latest: Job; completed: Job | null }>; timezone: string; format: string }) {
  const p = paths(props.projectId, props.reportId);
  const rows = ['json', ...RENDERED_FORMATS].map((format) => ({ format, ...(props.status.get(format) ?? { latest: null, completed: null }) }));
  return (
    <Table
      caption="Documents of this report"
      rows={rows}
      columns={[
        { label: 'Format', cell: (r) => FORMAT_LABELS[r.format as Download] },
        {
          label: 'Render status',
          cell: (r) => r.format === 'json' ? <Tag value="completed" label="Ready (written with the report)" /> : r.latest ? (
            <>
              <Tag value={r.latest.status} label={r.latest.status.toLowerCase()} />
              {r.latest.status === 'FAILED' && r.latest.message ? <><br /><span class="small">{r.latest.message}</span></> : null}
            </>
          ) : <span class="muted">not rendered</span>,
        },
        { label: 'Rendered', cell: (r) => r.format === 'json' ? '' : r.completed ? <Time iso={r.completed.finished_at} timezone={props.timezone} /> : '' },
        { label: 'Size', numeric: true, cell: (r) => formatBytes(typeof r.completed?.metadata?.bytes === 'number' ? r.completed.metadata.bytes : null) },
        {
          label: 'Document',
          cell: (r) => r.format === 'json' || r.completed ? (
            <>
              <a href={p.download(r.format as Download)} download="">Download<span class="visually-hidden"> {FORMAT_LABELS[r.format as Download]}</span></a>
              {' · '}
              {r.format === props.format ? <span aria-current="true">provenance shown</span> : <a href={withQuery(p.documents, { format: r.format })}>Provenance<span class="visually-hidden"> of the {FORMAT_LABELS[r.format as Download]}</span></a>}
            </>
          ) : '',
        },
      ]}
    />
  );
}

export function ProvenanceList(props: { provenance: Provenance; projectId: string; timezone: string }) {
  const pr = props.provenance;
  const vulnerabilityData = Object.entries(pr.versions.vulnerability_data ?? {}).map(([k, v]) => `${humanize(k)}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join('; ');
  return (
    <dl class="facts">
      <dt>Report</dt><dd>{pr.report.subject}, {pr.report.type}, produced <Time iso={pr.report.produced_at} timezone={props.timezone} /> <span class="mono small wrap">{pr.report.id}</span></dd>
      <dt>Survey</dt><dd><a href={paths(props.projectId).survey(pr.survey.id)}>{pr.survey.type}{pr.survey.tag ? ` (${pr.survey.tag})` : ''}</a> <span class="mono small wrap">{pr.survey.id}</span></dd>
      <dt>Uploaded bundle</dt><dd>{pr.bundle ? <>SHA-256 <span class="mono small wrap">{pr.bundle.sha256}</span></> : 'none recorded'}</dd>
      <dt>Analysis</dt><dd>logic {pr.versions.analysis}, classification {pr.versions.classification}; from survey <span class="mono small wrap">{pr.analysis_source.survey_id}</span> (attempt {pr.analysis_source.attempt})</dd>
      <dt>Vulnerability data</dt><dd class="small wrap">{vulnerabilityData || 'none'}</dd>
      {pr.versions.template ? <><dt>Template</dt><dd>{pr.versions.template.format} version {pr.versions.template.version}, written with {pr.versions.renderer ?? 'built-in'}</dd></> : null}
      <dt>{pr.format === 'json' ? 'Produced' : 'Rendered'}</dt>
      <dd><Time iso={pr.rendered_at} timezone={props.timezone} />{pr.duration_ms != null ? `, in ${formatCount(pr.duration_ms)} ms` : ''}{pr.bytes != null ? `, ${formatBytes(pr.bytes)}` : ''}</dd>
    </dl>
  );
}

export function StaleNotice(props: { stale: StaleDocument[]; canRender: boolean }) {
  if (!props.stale.length) return null;
  return (
    <div class="callout callout-warn" role="status">
      <p><strong>Some documents of this report are stale.</strong></p>
      <ul>
        {props.stale.map((s) => (
          <li>{FORMAT_LABELS[s.format as Download] ?? s.format}: {s.reasons.map((r) => REASON_TEXT[r.reason] ?? r.reason).join('; ')}.</li>
        ))}
      </ul>
      <p>{props.canRender ? 'Render the documents again, or regenerate the report, to bring them up to date.' : 'Someone who may edit the project can render them again.'}</p>
    </div>
  );
}

/** One comparison list (added, removed or moved), a hundred rows at a time. */
export function CompareList(props: { list: 'added' | 'removed' | 'moved'; rows: (Brief | Moved)[]; offset: number; total: number; href: (offset: number) => string }) {
  const name = humanize(props.list);
  if (!props.total) return <Empty><p>Nothing {props.list}: {props.list === 'moved' ? 'every finding in both reports stayed in its section.' : `no finding is only in the ${props.list === 'added' ? 'newer' : 'baseline'} report.`}</p></Empty>;
  const shown = props.rows;
  return (
    <>
      <Table
        caption={<>{name}: {plural(props.total, 'finding', 'findings')}</>}
        rows={shown}
        columns={[
          { label: 'Finding', cell: (r) => <><span class="wrap">{r.name}</span>{r.purl ? <><br /><span class="mono small muted wrap">{r.purl}</span></> : null}</> },
          ...(props.list === 'moved'
            ? [
              { label: 'From', cell: (r: Brief | Moved) => <Tag value={(r as Moved).from} label={humanize((r as Moved).from)} /> },
              { label: 'To', cell: (r: Brief | Moved) => <Tag value={(r as Moved).to} label={humanize((r as Moved).to)} /> },
            ]
            : [{ label: 'Section', cell: (r: Brief | Moved) => <Tag value={(r as Brief).section} label={humanize((r as Brief).section)} /> }]),
        ]}
      />
      <Pager
        label={`Pages of the ${props.list} findings`}
        shown={`${formatCount(props.offset + 1)}–${formatCount(props.offset + shown.length)} of ${formatCount(props.total)} ${props.list}`}
        previous={props.offset > 0 ? props.href(Math.max(0, props.offset - PAGE_ROWS)) : null}
        next={props.offset + PAGE_ROWS < props.total ? props.href(props.offset + PAGE_ROWS) : null}
      />
    </>
  );
}
