// Ranked fixes (issue 21, page 6): a paged table of the portfolio's fixes, best first (reach, fix
// version, gain), where whole rows, single findings or bundled-library upgrades are ticked. The ticks
// are a GET form: the selection lives in the URL (ticks on other pages ride along as hidden inputs).
// "Simulate" answers current and projected scores per axis (the word "projected" beside every projected
// number) and the re-ranked list: without script the same GET renders the whole page with the result;
// with htmx only the result is fetched and swapped in, and a polite live region says what changed.
import { Hono } from 'hono';
import { api, messageOf, ok } from '../../api';
import { Empty, Notice, PageTitle, Pager, Table, Tag } from '../../components/common';
import { hx } from '../../components/shell';
import type { DashContext, DashEnv } from '../../context';
import { formatCount } from '../../format';
import { fragment, shellPage, wantsFragment } from '../../respond';
import {
  AXES, AXIS_LABEL, deltaText, fixesOf, hrefWith, offsetOf, pairValue, portfolioApi, portfolioHref, scoreText, selectionOf,
  selectionParams, selectionSize, type Portfolio, type RankPage, type RankRow, type Selection, type Simulation,
} from './data';
import { pageLinks, shownText } from './views';
import { DecisionTag, decisionHref } from '../triage';

const RANK_SIZE = 50;
const RERANK_SIZE = 25;

type SimulationResult = { kind: 'none' } | { kind: 'empty' } | { kind: 'refused'; message: string } | { kind: 'done'; sim: Simulation; fixes: number };

async function simulate(c: DashContext, projectId: string, portfolioId: string, selection: Selection): Promise<SimulationResult> {
  const fixes = fixesOf(selection);
  if (!fixes.length) return { kind: 'empty' };
  const answer = await api(c).send<Simulation>('POST', `${portfolioApi(projectId, portfolioId)}/simulate?rank=true`, { fixes });
  if (answer.status === 400) return { kind: 'refused', message: messageOf(answer) };
  return { kind: 'done', sim: ok(answer), fixes: fixes.length };
}

/** The sentence the live region says after a simulation (and the page shows). */
function summaryOf(result: SimulationResult): string {
  if (result.kind === 'empty') return 'Nothing to simulate: tick at least one fix, finding or library upgrade.';
  if (result.kind === 'refused') return `The simulation was refused: ${result.message}`;
  if (result.kind === 'none') return '';
  const { current, projected } = result.sim;
  return `Simulated ${result.fixes} fix${result.fixes === 1 ? '' : 'es'}: overall score ${scoreText(current.score)} now, ${scoreText(projected.score)} projected.`;
}

function SimulationView(props: { result: SimulationResult; path: string; keep: [string, string | number | null][]; roffset: number }) {
  const { result } = props;
  if (result.kind === 'none') return <p class="muted">Tick fixes in the table below and choose Simulate to see the projected scores here.</p>;
  if (result.kind === 'empty') return <Notice kind="warn">{summaryOf(result)}</Notice>;
  if (result.kind === 'refused') return <Notice kind="error">{summaryOf(result)}</Notice>;
  const { sim } = result;
  const rows = [
    { label: 'Overall', now: sim.current.score, nowBand: sim.current.band, then: sim.projected.score, thenBand: sim.projected.band, gain: sim.gain.overall },
    ...AXES.map((axis) => ({
      label: AXIS_LABEL[axis], now: sim.current.axes[axis].score, nowBand: sim.current.axes[axis].band,
      then: sim.projected.axes[axis].score, thenBand: sim.projected.axes[axis].band, gain: sim.gain[axis],
    })),
  ];
  const rank = sim.rank ?? [];
  const roffset = Math.min(props.roffset, Math.max(0, rank.length - 1));
  const rankPage = rank.slice(roffset, roffset + RERANK_SIZE);
  return (
    <>
      <h2 id="simulation-title">Simulation: {result.fixes} fix{result.fixes === 1 ? '' : 'es'} (projected)</h2>
      <p>{summaryOf(result)} Nothing is changed by simulating.</p>
      <Table
        caption="Current and projected scores per axis"
        rows={rows}
        columns={[
          { label: 'Axis', cell: (r) => r.label },
          { label: 'Current', numeric: true, cell: (r) => scoreText(r.now) },
          { label: 'Current band', cell: (r) => (r.nowBand ? <Tag value={r.nowBand} /> : '–') },
          { label: 'Projected', numeric: true, cell: (r) => <span class="projected">{scoreText(r.then)} <span class="small">(projected)</span></span> },
          { label: 'Projected band', cell: (r) => (r.thenBand ? <Tag value={r.thenBand} label={`${r.thenBand} (projected)`} /> : '–') },
          { label: 'Gain', numeric: true, cell: (r) => deltaText(r.gain) },
        ]}
      />
      <Table
        caption="What each ticked fix does alone"
        rows={sim.fixes}
        columns={[
          { label: 'Fix', cell: (f) => <span class="wrap mono">{f.item_key}{f.finding_key ? `: finding ${f.finding_key}` : ''}{f.dependency ? `: upgrade bundled ${f.dependency}` : ''}</span> },
          { label: 'Findings fixed', numeric: true, cell: (f) => formatCount(f.findings_fixed) },
          { label: 'Subjects', numeric: true, cell: (f) => formatCount(f.subjects) },
          { label: 'Gain (points)', numeric: true, cell: (f) => f.gain.toFixed(2) },
        ]}
      />
      <h3>Fixes ranked again after these (projected)</h3>
      {rankPage.length ? (
        <>
          <Table
            caption="Remaining fixes, re-ranked by their gain from the projected scores"
            rows={rankPage}
            columns={[
              { label: 'Fix', cell: (r) => <><span class="wrap">#{r.rank} {r.name ?? r.item_key}</span><div class="small muted wrap mono">{r.item_key}</div></> },
              { label: 'Before', numeric: true, cell: (r) => (r.previous_rank == null ? '–' : `#${r.previous_rank}`) },
              { label: 'Gain (projected)', numeric: true, cell: (r) => r.gain.overall.toFixed(2) },
              { label: 'Fix version', cell: (r) => r.fix_version ?? '–' },
            ]}
          />
          <Pager
            shown={shownText(roffset, rankPage.length, rank.length, 're-ranked fixes')} label="Re-ranked pages"
            {...pageLinks(props.path, props.keep, 'roffset', roffset, RERANK_SIZE, rank.length)}
          />
        </>
      ) : <p>No fix is left worth any points after these.</p>}
    </>
  );
}

/** The Simulate button (htmx fetches only the result; without script the GET renders the page) and the ticks' count. */
function SimulateBar(props: { path: string; nonce: string; offset: number; ticked: number; elsewhere: number; count?: boolean }) {
  return (
    <div class="toolbar simulate-bar">
      <button
        type="submit" class="btn btn-primary" name="simulate" value="1"
        {...hx(props.nonce, { 'hx-get': props.path, 'hx-include': '#fixes-form', 'hx-target': '#simulation', 'hx-swap': 'innerHTML', 'hx-push-url': 'true' })}
      >Simulate</button>
      {props.ticked ? <a class="btn btn-secondary" href={hrefWith(props.path, [['offset', props.offset || null]])}>Clear ticks</a> : null}
      <span class="small">
        {props.ticked && props.count !== false ? `${formatCount(props.ticked)} tick${props.ticked === 1 ? '' : 's'} in all${props.elsewhere ? `, ${formatCount(props.elsewhere)} of them on other pages` : ''}.` : null}
      </span>
    </div>
  );
}

function FixCell(props: { row: RankRow; ticked: boolean }) {
  const { row } = props;
  return (
    <>
      <input type="checkbox" class="check" id={`row-${row.rank}`} name="row" value={row.item_key} checked={props.ticked} />
      <label for={`row-${row.rank}`}> <span class="muted">#{row.rank}</span> {row.action === 'upgrade' ? 'Upgrade' : 'Migrate'} <strong class="wrap">{row.name}</strong></label>
      <div class="small muted wrap mono">{row.item_key}</div>
      {row.replacement ? <div class="small">Move to {row.replacement}</div> : null}
    </>
  );
}

function FindingsCell(props: { projectId: string; row: RankRow; ticked: Set<string> }) {
  const { row } = props;
  const total = row.findings_total ?? row.findings.length;
  const open = row.findings.some((f) => props.ticked.has(f.finding_key));
  return (
    <details open={open}>
      <summary>{formatCount(total)} finding{total === 1 ? '' : 's'}</summary>
      <ul class="tick-list">
        {row.findings.map((f, i) => (
          <li>
            <input type="checkbox" class="check" id={`finding-${row.rank}-${i}`} name="finding" value={pairValue(row.item_key, f.finding_key)} checked={props.ticked.has(f.finding_key)} />
            <label for={`finding-${row.rank}-${i}`}> <span class="mono wrap">{f.finding_key}</span> <span class="small muted">({f.axis}, {f.points.toFixed(2)} points{f.severity ? `, ${f.severity}` : ''})</span></label>
            {f.decision ? <> <DecisionTag state={f.decision.state} suppressed={false} href={decisionHref(props.projectId, f.decision.id)} /></> : null}
          </li>
        ))}
      </ul>
      {total > row.findings.length ? <p class="small muted">The {row.findings.length} most important of {formatCount(total)} shown.</p> : null}
    </details>
  );
}

function LibrariesCell(props: { row: RankRow; ticked: Set<string> }) {
  const { row } = props;
  if (!row.dependencies.length) return <span class="muted">none</span>;
  return (
    <ul class="tick-list">
      {row.dependencies.map((d, i) => {
        const value = d.purl ?? d.name;
        return (
          <li>
            <input type="checkbox" class="check" id={`dep-${row.rank}-${i}`} name="dep" value={pairValue(row.item_key, value)} checked={props.ticked.has(value)} />
            <label for={`dep-${row.rank}-${i}`}> upgrade <span class="mono wrap">{d.name}</span>{d.versions.length ? <span class="small muted"> ({d.versions.join(', ')})</span> : null}</label>
          </li>
        );
      })}
    </ul>
  );
}

function FixesTable(props: { projectId: string; page: RankPage; selection: Selection }) {
  const whole = new Set(props.selection.rows);
  const findingsOf = (item: string) => new Set(props.selection.findings.filter(([i]) => i === item).map(([, k]) => k));
  const depsOf = (item: string) => new Set(props.selection.deps.filter(([i]) => i === item).map(([, k]) => k));
  return (
    <div class="table-box">
      <table class="fixes">
        <caption>Ranked fixes, best first: tick whole rows, single findings or bundled-library upgrades</caption>
        <thead>
          <tr>
            <th scope="col">Fix</th>
            <th scope="col">Fix version</th>
            <th scope="col">Reach</th>
            <th scope="col" class="num">Gain (points)</th>
            <th scope="col">Findings</th>
            <th scope="col">Bundled libraries</th>
          </tr>
        </thead>
        <tbody>
          {props.page.rows.map((row) => (
            <tr>
              <th scope="row"><FixCell row={row} ticked={whole.has(row.item_key)} /></th>
              <td>{row.fix_version ?? <span class="muted">{row.kind === 'package' ? 'unknown' : 'none (a migration)'}</span>}</td>
              <td>
                {formatCount(row.reach.count)} subject{row.reach.count === 1 ? '' : 's'}
                <div class="small muted wrap">{row.reach.subjects.slice(0, 3).join(', ')}{row.reach.count > 3 ? ', …' : ''}</div>
              </td>
              <td class="num">{row.gain.overall.toFixed(2)}</td>
              <td><FindingsCell projectId={props.projectId} row={row} ticked={findingsOf(row.item_key)} /></td>
              <td><LibrariesCell row={row} ticked={depsOf(row.item_key)} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export const fixesRoutes = new Hono<DashEnv>()
  .get('/projects/:projectId/portfolios/:portfolioId/fixes', async (c) => {
    const projectId = c.var.frame.projectId!;
    const portfolioId = c.req.param('portfolioId');
    const selection = selectionOf((name) => c.req.queries(name));
    const offset = offsetOf(c.req.query('go') ?? c.req.query('offset'));
    const roffset = offsetOf(c.req.query('roffset'));
    const wantsSimulation = c.req.query('simulate') === '1';
    const path = `${portfolioHref(projectId, portfolioId)}/fixes`;
    const keep: [string, string | number | null][] = [['offset', offset || null], ...selectionParams(selection), ['simulate', wantsSimulation ? '1' : null]];
    const withoutRoffset = keep;

    if (wantsFragment(c) && wantsSimulation) {
      const result = await simulate(c, projectId, portfolioId, selection);
      return fragment(c, (
        <>
          <SimulationView result={result} path={path} keep={withoutRoffset} roffset={roffset} />
          <p id="simulation-status" {...hx(c.var.nonce, { 'hx-swap-oob': 'innerHTML' })}>{summaryOf(result)}</p>
        </>
      ));
    }

    const calls = api(c);
    const [portfolio, page, result] = await Promise.all([
      calls.get<Portfolio>(portfolioApi(projectId, portfolioId)),
      calls.get<RankPage>(`${portfolioApi(projectId, portfolioId)}/rank?summary=true&limit=${RANK_SIZE}&offset=${offset}`),
      wantsSimulation ? simulate(c, projectId, portfolioId, selection) : Promise.resolve<SimulationResult>({ kind: 'none' }),
    ]);
    const onPage = new Set(page.rows.map((r) => r.item_key));
    const elsewhere: Selection = {
      rows: selection.rows.filter((k) => !onPage.has(k)),
      findings: selection.findings.filter(([k]) => !onPage.has(k)),
      deps: selection.deps.filter(([k]) => !onPage.has(k)),
    };
    const ticked = selectionSize(selection);
    const hasPrevious = offset > 0;
    const hasNext = offset + page.rows.length < page.total;
    return shellPage(c, { title: `Ranked fixes of ${portfolio.name}`, area: 'Portfolios' }, (
      <>
        <PageTitle title={`Ranked fixes of ${portfolio.name}`} crumbs={[{ href: portfolioHref(projectId), label: 'Portfolios' }, { href: portfolioHref(projectId, portfolioId), label: portfolio.name }]} />
        <p>Each row is one thing to do: upgrade a package or migrate an algorithm, ranked by how much the portfolio's overall score would rise if that row alone were fixed. Tick rows, single findings or bundled libraries, then simulate them together.</p>
        <p id="simulation-status" class="visually-hidden" aria-live="polite">{summaryOf(result)}</p>
        {page.rows.length ? (
          <form method="get" action={path} id="fixes-form">
            <input type="hidden" name="offset" value={String(offset)} />
            {selectionParams(elsewhere).map(([name, value]) => <input type="hidden" name={name} value={value} />)}
            <SimulateBar path={path} nonce={c.var.nonce} offset={offset} ticked={ticked} elsewhere={selectionSize(elsewhere)} />
            <div id="simulation" class="simulation">
              <SimulationView result={result} path={path} keep={withoutRoffset} roffset={roffset} />
            </div>
            <FixesTable projectId={projectId} page={page} selection={selection} />
            <nav class="pager" aria-label="Fix pages">
              <span>{shownText(offset, page.rows.length, page.total, 'fixes')}</span>
              <span class="actions-inline">
                {hasPrevious ? <button type="submit" class="btn btn-secondary btn-small" name="go" value={String(Math.max(0, offset - RANK_SIZE))}>Previous fixes</button> : null}
                {hasNext ? <button type="submit" class="btn btn-secondary btn-small" name="go" value={String(offset + RANK_SIZE)}>Next fixes</button> : null}
              </span>
            </nav>
            <SimulateBar path={path} nonce={c.var.nonce} offset={offset} ticked={ticked} elsewhere={selectionSize(elsewhere)} count={false} />
          </form>
        ) : (
          <Empty><p>No fix is ranked: nothing in this portfolio's subjects costs points, or it has no subjects yet. Add members or upload a survey of a member subject.</p></Empty>
        )}
      </>
    ));
  });
