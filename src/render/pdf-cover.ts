// The PDF's frame (src/render/pdf.ts): the cover, made last since its contents list needs the page
// numbers, and the footer of every other page (its number and the report's identity).
import type { PdfPages } from './pdf-pages';
import { PAGE_HEIGHT, PAGE_WIDTH } from './pdf-paint';
import { baselineOffset, CONTENT_WIDTH, formatNumber, MARGIN, MUTED, NAVY, PALE, RIGHT, RULE, WHITE } from './pdf-style';
import type { Weight } from './pdf-type';

/** The cover: the report's title band, what it is about, and the contents with their page numbers. */
export function coverPage(p: PdfPages): void {
  p.frontPage();
  const { model, type } = p;
  const left = 56;
  const width = PAGE_WIDTH - 2 * left;

  const title = type.wrap(model.title, width, 30, 'bold', 3);
  const bandHeight = 96 + title.length * 36 + 44;
  p.rect(0, 0, PAGE_WIDTH, bandHeight, NAVY);
  p.text(type.fit(`${model.reportType} report`.toUpperCase(), width, 9.5, 'bold'), left, 64, { size: 9.5, weight: 'bold', color: PALE });
  p.paragraph(title, left, 80, 36, { size: 30, weight: 'bold', color: WHITE });
  p.text(type.fit(model.project.name, width, 15, 'regular'), left, bandHeight - 30, { size: 15, color: PALE });

  // Left: what the report is about. Right: what is in it.
  const detailsWidth = width * 0.5;
  const labelWidth = 92;
  const survey = [model.survey.tag ?? model.survey.id, model.survey.type && `(${model.survey.type})`].filter(Boolean).join(' ');
  const details: [string, string, Weight][] = [
    ['Project', model.project.name, 'bold'],
    ['Subject', model.subject, 'bold'],
    ['Survey', survey || 'none', 'regular'],
    ['Produced', p.producedLabel, 'regular'],
    ['Report ID', model.reportId, 'regular'],
  ];
  let top = bandHeight + 40;
  for (const [label, value, weight] of details) {
    const lines = type.wrap(value, detailsWidth - labelWidth, 12, weight, 2);
    p.text(label.toUpperCase(), left, top + baselineOffset(12, 17), { size: 8, weight: 'bold', color: MUTED });
    top += p.paragraph(lines, left + labelWidth, top, 17, { size: 12, weight }) + 12;
  }

  const contentsLeft = left + detailsWidth + 40;
  const contentsWidth = PAGE_WIDTH - left - contentsLeft;
  top = bandHeight + 40;
  p.text('CONTENTS', contentsLeft, top + baselineOffset(12, 17), { size: 8, weight: 'bold', color: MUTED });
  top += 22;
  // As many entries as fit above the bottom margin; the last line says how many more there are.
  const fitting = Math.floor((PAGE_HEIGHT - 48 - top) / 24);
  const listed = p.contents.length <= fitting ? p.contents : p.contents.slice(0, Math.max(0, fitting - 1));
  for (const entry of listed) {
    const pageWidth = p.text(String(entry.page), PAGE_WIDTH - left, top + 12, { size: 10, weight: 'bold', align: 'right' });
    p.rect(contentsLeft, top + 4, 7, 7, entry.color);
    const room = contentsWidth - 14 - pageWidth - 12;
    const titleWidth = p.text(type.fit(entry.title, room * 0.72, 10, 'regular'), contentsLeft + 14, top + 12, { size: 10 });
    p.text(type.fit(entry.detail, room - titleWidth - 8, 8.5, 'regular'), contentsLeft + 14 + titleWidth + 8, top + 12, { size: 8.5, color: MUTED });
    p.line(contentsLeft, top + 19, PAGE_WIDTH - left, top + 19, 0.5, RULE);
    top += 24;
  }
  const unlisted = p.contents.length - listed.length;
  if (unlisted > 0) p.text(`and ${formatNumber(unlisted)} more sections`, contentsLeft + 14, top + 12, { size: 9, color: MUTED });
}

/** Page numbers and the report's identity on every page but the cover. */
export function pageFooters(p: PdfPages): void {
  const total = p.pages.length;
  const widestPageLabel = p.type.width(`Page ${total} of ${total}`, 7.5, 'bold');
  const identity = p.type.fit(`Report ${p.model.reportId} · ${p.model.project.name} · ${p.model.subject}`, CONTENT_WIDTH - widestPageLabel - 24, 7.5, 'regular');
  const y = PAGE_HEIGHT - 24;
  for (let index = 1; index < total; index++) {
    p.turnTo(index);
    p.line(MARGIN, y - 12, RIGHT, y - 12, 0.5, RULE);
    p.text(`Page ${index + 1} of ${total}`, RIGHT, y, { size: 7.5, weight: 'bold', color: MUTED, align: 'right' });
    p.text(identity, MARGIN, y, { size: 7.5, color: MUTED });
  }
}
