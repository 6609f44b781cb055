// A score-history chart drawn on the server as inline SVG (no chart library, no style attributes):
// the score as a step line over time (a score holds until its next movement), the band thresholds as
// dashed lines with their names, each movement a point carrying its cause's letter and a tooltip. It
// is never the only carrier: the page lists the same rows as a table.
import { formatTime } from '../../format';
import { AXIS_LABEL, CAUSE_LABEL, CAUSE_MARK, scoreText, type Axis, type Cause, type HistoryRow } from './data';

const W = 720;
const H = 250;
const LEFT = 40;
const RIGHT = 78;
const TOP = 22;
const BOTTOM = 46;
/** The chart shows the latest movements; the table under it lists them all. */
export const CHART_POINTS = 60;

export interface Thresholds { strong: number; fair: number; weak: number }

export function HistoryChart(props: { axis: Axis; rows: HistoryRow[]; thresholds: Thresholds; timezone: string }) {
  const rows = props.rows.slice(-CHART_POINTS);
  const id = `chart-${props.axis}`;
  const plotW = W - LEFT - RIGHT;
  const plotH = H - TOP - BOTTOM;
  const times = rows.map((r) => Date.parse(r.at));
  const t0 = Math.min(...times);
  const t1 = Math.max(...times);
  const x = (i: number) => (rows.length === 1 || t1 === t0 ? LEFT + plotW / 2 : LEFT + ((times[i]! - t0) / (t1 - t0)) * plotW);
  const y = (score: number) => TOP + plotH - (Math.max(0, Math.min(100, score)) / 100) * plotH;
  const r1 = (n: number) => Math.round(n * 10) / 10;
  // A step line: each score holds until the next movement, then the line rises or falls.
  let path = '';
  rows.forEach((row, i) => {
    path += i === 0 ? `M${r1(x(i))},${r1(y(row.score))}` : `H${r1(x(i))}V${r1(y(row.score))}`;
  });
  if (rows.length) path += `H${LEFT + plotW}`;
  const first = rows[0];
  const last = rows.at(-1);
  const causes = [...new Set(rows.map((r) => r.cause))] as Cause[];
  const description = last
    ? `${rows.length} movement${rows.length === 1 ? '' : 's'} shown, from ${scoreText(first!.score)} to ${scoreText(last.score)} (${last.band ?? 'no band'}). The table below lists every movement with its cause.`
    : 'No movements yet.';
  const bands: [string, number][] = [['strong', props.thresholds.strong], ['fair', props.thresholds.fair], ['weak', props.thresholds.weak]];
  return (
    <figure class="history-figure">
      <svg class="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-title ${id}-desc`} xmlns="http://www.w3.org/2000/svg">
        <title id={`${id}-title`}>{`${AXIS_LABEL[props.axis]} score history`}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        <line class="axis" x1={LEFT} y1={TOP} x2={LEFT} y2={TOP + plotH} />
        <line class="axis" x1={LEFT} y1={TOP + plotH} x2={LEFT + plotW} y2={TOP + plotH} />
        {[0, 50, 100].map((v) => (
          <text x={LEFT - 6} y={y(v) + 4} text-anchor="end">{v}</text>
        ))}
        {bands.map(([name, at]) => (
          <g class={`band band-${name}`}>
            <line class="band-line" x1={LEFT} y1={r1(y(at))} x2={LEFT + plotW} y2={r1(y(at))} />
            <text x={LEFT + plotW + 6} y={r1(y(at)) + 4}>{`${name} ≥ ${at}`}</text>
          </g>
        ))}
        {rows.length ? <path class="line" d={path} /> : null}
        {rows.map((row, i) => (
          <g class={`point-group cause-${row.cause}`}>
            <circle class="point" cx={r1(x(i))} cy={r1(y(row.score))} r={4}>
              <title>{`${formatTime(row.at, props.timezone)}: ${scoreText(row.score)} (${row.band ?? 'no band'}), ${CAUSE_LABEL[row.cause]}`}</title>
            </circle>
            <text class="cause-mark" x={r1(x(i))} y={r1(y(row.score)) - 8} text-anchor="middle">{CAUSE_MARK[row.cause]}</text>
          </g>
        ))}
        {first ? <text x={LEFT} y={H - BOTTOM + 18} text-anchor="start">{formatTime(first.at, props.timezone)}</text> : null}
        {last && rows.length > 1 ? <text x={LEFT + plotW} y={H - BOTTOM + 18} text-anchor="end">{formatTime(last.at, props.timezone)}</text> : null}
      </svg>
      <figcaption class="small muted">
        {causes.length ? <>Letters mark each movement's cause: {causes.map((c, i) => <>{i ? '; ' : ''}<strong>{CAUSE_MARK[c]}</strong> {CAUSE_LABEL[c]}</>)}.</> : null}
        {props.rows.length > rows.length ? ` The chart shows the latest ${rows.length} of ${props.rows.length} movements.` : null}
      </figcaption>
    </figure>
  );
}
