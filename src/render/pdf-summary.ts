// The PDF's summary page (src/render/pdf.ts): the headline figures as cards, the chart of the sections
// as horizontal bars, and the notes.
import type { Figure, RenderModel } from './model';
import type { PdfPages } from './pdf-pages';
import { BODY_BOTTOM, BODY_TOP, baselineOffset, CARD, CONTENT_WIDTH, formatNumber, INK, MARGIN, MUTED, NAVY, parseColor, RULE } from './pdf-style';
import { clean, clip } from './pdf-type';

/** The chart keeps to one page. */
const MAX_CHART_BARS = 40;

/** The summary page: headline figures, the chart, the notes. */
export function summaryPage(p: PdfPages): void {
  p.newPage();
  p.contents.push({ title: 'Summary', detail: 'headline figures, chart, notes', color: NAVY, page: p.pageNumber });
  p.text('Summary', MARGIN, p.y + 18, { size: 18, weight: 'bold' });
  p.y += 34;
  figures(p, p.model.figures);
  chart(p, p.model.chart);
  notes(p, p.model.notes);
}

function figures(p: PdfPages, figures: Figure[]): void {
  if (!figures.length) return;
  const perRow = Math.min(figures.length, 5);
  const gap = 12;
  const cardWidth = (CONTENT_WIDTH - gap * (perRow - 1)) / perRow;
  const inner = cardWidth - 24;
  for (let start = 0; start < figures.length; start += perRow) {
    const cards = figures.slice(start, start + perRow).map((figure) => {
      const value = typeof figure.value === 'number' ? formatNumber(figure.value) : figure.value;
      // Long values shrink (down to 12 pt) before they are shortened.
      const valueSize = Math.max(12, Math.min(22, (22 * inner) / Math.max(1, p.type.width(clean(clip(value)), 22, 'bold'))));
      return {
        label: p.type.wrap(figure.label, inner, 8.5, 'regular', 2),
        value: p.type.fit(value, inner, valueSize, 'bold'),
        valueSize,
        detail: figure.detail ? p.type.wrap(figure.detail, inner, 8.5, 'regular', 2) : [],
      };
    });
    const height = 14 + Math.max(...cards.map((card) => (card.label.length + card.detail.length) * 11 + 30)) + 10;
    p.ensure(height);
    cards.forEach((card, index) => {
      const x = MARGIN + index * (cardWidth + gap);
      p.rect(x, p.y, cardWidth, height, CARD);
      p.rect(x, p.y, 3, height, NAVY);
      let top = p.y + 12;
      top += p.paragraph(card.label, x + 14, top, 11, { size: 8.5, color: MUTED });
      p.text(card.value, x + 14, top + 24, { size: card.valueSize, weight: 'bold' });
      top += 30;
      p.paragraph(card.detail, x + 14, top, 11, { size: 8.5, color: MUTED });
    });
    p.y += height + gap;
  }
  p.y += 10;
}

/** A horizontal bar chart: labels on the left, bars on a value axis, each bar's value at its end. */
function chart(p: PdfPages, chart: RenderModel['chart']): void {
  const bars = chart.bars.slice(0, MAX_CHART_BARS);
  const rowHeight = Math.min(24, Math.max(9, (BODY_BOTTOM - BODY_TOP - 80) / Math.max(1, bars.length)));
  p.ensure(28 + bars.length * rowHeight + 30);
  p.text(p.type.fit(chart.title, CONTENT_WIDTH, 12, 'bold'), MARGIN, p.y + 12, { size: 12, weight: 'bold' });
  p.y += 24;
  if (!bars.length) {
    p.text('No data.', MARGIN, p.y + 10, { size: 9, color: MUTED });
    p.y += 24;
    return;
  }
  const values = bars.map((bar) => (Number.isFinite(bar.value) ? Math.max(0, bar.value) : 0));
  const step = niceStep(values.reduce((max, value) => Math.max(max, value), 0));
  const axisMax = Math.max(step, step * Math.ceil(values.reduce((max, value) => Math.max(max, value), 0) / step));
  const labelSize = Math.min(9, rowHeight * 0.6);
  const labels = bars.map((bar) => clean(bar.label).replace(/\n/g, ' '));
  const labelWidth = Math.min(CONTENT_WIDTH * 0.28, Math.max(...labels.map((label) => p.type.width(label, labelSize, 'regular')))) + 12;
  const valueWidth = Math.max(...values.map((value) => p.type.width(formatNumber(value), labelSize, 'bold'))) + 10;
  const plotX = MARGIN + labelWidth;
  const plotWidth = CONTENT_WIDTH - labelWidth - valueWidth;
  const plotTop = p.y;
  const plotBottom = plotTop + bars.length * rowHeight;

  for (let tick = 0; tick <= axisMax + step / 2; tick += step) {
    const x = plotX + (tick / axisMax) * plotWidth;
    p.line(x, plotTop, x, plotBottom, 0.5, tick === 0 ? INK : RULE);
    p.text(formatNumber(tick), x - p.type.width(formatNumber(tick), 7.5, 'regular') / 2, plotBottom + 12, { size: 7.5, color: MUTED });
  }
  p.line(plotX, plotBottom, plotX + plotWidth, plotBottom, 0.75, INK);
  bars.forEach((bar, index) => {
    const top = plotTop + index * rowHeight;
    const barHeight = rowHeight * 0.62;
    const barTop = top + (rowHeight - barHeight) / 2;
    const baseline = barTop + barHeight / 2 + labelSize * 0.35;
    const width = (values[index]! / axisMax) * plotWidth;
    p.text(p.type.fit(labels[index]!, labelWidth - 12, labelSize, 'regular'), plotX - 8, baseline, { size: labelSize, align: 'right' });
    if (width > 0) p.rect(plotX, barTop, width, barHeight, parseColor(bar.color));
    p.text(formatNumber(values[index]!), plotX + width + 5, baseline, { size: labelSize, weight: 'bold' });
  });
  p.y = plotBottom + 20;
  if (chart.bars.length > bars.length) {
    p.text(`${formatNumber(chart.bars.length - bars.length)} more bars not shown.`, MARGIN, p.y + 10, { size: 8.5, color: MUTED });
    p.y += 14;
  }
  p.y += 14;
}

function notes(p: PdfPages, notes: string[]): void {
  if (!notes.length) return;
  p.ensure(40);
  p.text('Notes', MARGIN, p.y + 11, { size: 11, weight: 'bold' });
  p.y += 20;
  for (const note of notes) {
    const lines = p.type.wrap(note, CONTENT_WIDTH - 14, 9.5, 'regular');
    p.ensure(Math.min(lines.length, 3) * 13);
    lines.forEach((line, index) => {
      p.ensure(13);
      if (index === 0) p.text('•', MARGIN + 2, p.y + baselineOffset(9.5, 13), { size: 9.5, color: MUTED });
      p.y += p.paragraph([line], MARGIN + 14, p.y, 13, { size: 9.5 });
    });
    p.y += 4;
  }
}

/** A step of 1, 2 or 5 times a power of ten giving about five ticks up to `max`. */
function niceStep(max: number): number {
  if (max <= 0) return 1;
  const raw = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const normalized = raw / magnitude;
  const step = (normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10) * magnitude;
  // Counts have no fractional ticks unless the values are fractional themselves.
  return max >= 1 ? Math.max(1, step) : step;
}
