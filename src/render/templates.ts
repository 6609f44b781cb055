// The identity of each document format's template: recorded in every rendered document's provenance
// and compared by stale projections. Kept apart from the renderers (which pull in pdf-lib, exceljs and
// pptxgenjs) so the request path can read it without loading them. Raise a version whenever what the
// format's documents show, or how, changes.
import type { DocumentFormat, TemplateInfo } from './model';

export const PDF_TEMPLATE: TemplateInfo = { format: 'pdf', version: '2', library: 'pdf-lib 1.17.1', contentType: 'application/pdf' };
export const XLSX_TEMPLATE: TemplateInfo = { format: 'xlsx', version: '2', library: 'exceljs 4.4.0', contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' };
export const PPTX_TEMPLATE: TemplateInfo = { format: 'pptx', version: '2', library: 'pptxgenjs 4.0.1', contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation' };
export const HTML_TEMPLATE: TemplateInfo = { format: 'html', version: '2', library: 'built-in', contentType: 'text/html; charset=utf-8' };
export const CSV_TEMPLATE: TemplateInfo = { format: 'csv', version: '2', library: 'built-in', contentType: 'text/csv; charset=utf-8' };

export const TEMPLATES: Record<DocumentFormat, TemplateInfo> = { pdf: PDF_TEMPLATE, xlsx: XLSX_TEMPLATE, pptx: PPTX_TEMPLATE, html: HTML_TEMPLATE, csv: CSV_TEMPLATE };
