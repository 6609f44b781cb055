// What `npm run test:browser` and `npm run screenshots` decide without a browser (scripts/browser/walk.mjs).
import { describe, expect, it } from 'vitest';
import { devReadyLines, EXPORT_FORMATS, exportProblem, focusVisible, pageKind, pageLinks, screenshotName, seriousViolations, signInLinkOf } from '../scripts/browser/walk.mjs';

const ORIGIN = 'http://dashboard.localhost:18457';
const P = '/projects/0d3e0000-0000-4000-8000-000000000002';

describe('which links are followed', () => {
  it('keeps same-origin pages once, without fragments, in order', () => {
    const links = pageLinks([
      { href: `${ORIGIN}${P}/surveys` }, { href: `${ORIGIN}${P}/surveys#top` }, { href: `${ORIGIN}/profile` },
      { href: 'https://example.com/elsewhere' }, { href: 'http://localhost:18457/api/v1/health' }, { href: 'mailto:a@example.com' },
    ], ORIGIN);
    expect(links).toEqual([`${ORIGIN}${P}/surveys`, `${ORIGIN}/profile`]);
  });

  it('leaves out the API, static files, streams, downloads and signing in or out', () => {
    const hrefs = ['/api/v1/user', '/assets/dashboard.abc.css', `${P}/surveys/x/events`, `${P}/reports/r/download`, '/sign-in', '/sign-out', '/oauth/token', '/mcp', '/authorize/continue', '/session'];
    expect(pageLinks(hrefs.map((h) => ({ href: `${ORIGIN}${h}` })), ORIGIN)).toEqual([]);
    expect(pageLinks([{ href: `${ORIGIN}${P}/reports/r.pdf`, download: true }], ORIGIN)).toEqual([]);
  });

  it('follows the first link of each table column (it stands for the rows)', () => {
    const links = pageLinks([
      { href: `${ORIGIN}${P}/subjects/juice-shop`, group: '0:0' }, { href: `${ORIGIN}${P}/subjects/nginx`, group: '0:0' },
      { href: `${ORIGIN}${P}/surveys/1`, group: '0:2' }, { href: `${ORIGIN}${P}/surveys/2`, group: '0:2' },
    ], ORIGIN);
    expect(links).toEqual([`${ORIGIN}${P}/subjects/juice-shop`, `${ORIGIN}${P}/surveys/1`]);
  });
});

describe('kinds of page and screenshot names', () => {
  it('treats item ids as one kind of page, whatever the query', () => {
    expect(pageKind(`${ORIGIN}${P}/reports/01a21fd1-95cd-70bc-8bdd-09ecfbe6a168?section=red&page=2`)).toBe('/projects/:id/reports/:id');
    expect(pageKind(`${ORIGIN}${P}/data-health/runs/01ARZ3NDEKTSV4RRFFQ69G5FAV`)).toBe('/projects/:id/data-health/runs/:id');
    expect(pageKind(`${ORIGIN}/profile`)).toBe('/profile');
  });

  it('names a project page by its area and the others by their path', () => {
    expect(screenshotName(`${ORIGIN}${P}`)).toBe('overview');
    expect(screenshotName(`${ORIGIN}${P}/surveys`)).toBe('surveys');
    expect(screenshotName(`${ORIGIN}${P}/reports/01a21fd1-95cd-70bc-8bdd-09ecfbe6a168`)).toBe('reports-detail');
    expect(screenshotName(`${ORIGIN}${P}/subjects/Juice%20Shop/contents`)).toBe('subjects-juice-shop-contents');
    expect(screenshotName(`${ORIGIN}/profile`)).toBe('profile');
    expect(screenshotName(`${ORIGIN}/projects`)).toBe('projects');
    expect(screenshotName(`${ORIGIN}/`)).toBe('home');
  });
});

describe('a visible focus indicator', () => {
  const none = { outlineStyle: 'none', outlineWidth: '0px', outlineColor: 'rgb(0, 0, 0)', boxShadow: 'none' };
  const ring = { outlineStyle: 'solid', outlineWidth: '3px', outlineColor: 'rgb(10, 61, 143)', boxShadow: 'none' };

  it('is an outline (or a shadow) drawn only when focused', () => {
    expect(focusVisible(ring, none)).toBe(true);
    expect(focusVisible({ ...none, boxShadow: 'rgb(10, 61, 143) 0px 0px 0px 3px' }, none)).toBe(true);
  });

  it('is not there when nothing changes, the outline is hairline or transparent', () => {
    expect(focusVisible(none, none)).toBe(false);
    expect(focusVisible(ring, ring)).toBe(false);
    expect(focusVisible({ ...ring, outlineWidth: '0.5px' }, none)).toBe(false);
    expect(focusVisible({ ...ring, outlineColor: 'rgba(0, 0, 0, 0)' }, none)).toBe(false);
  });

  it('counts an outline that changes colour or width', () => {
    expect(focusVisible(ring, { ...ring, outlineColor: 'rgb(200, 200, 200)', outlineWidth: '1px' })).toBe(true);
  });
});

describe('axe results, emails and npm run dev output', () => {
  it('fails on critical and serious violations only', () => {
    const v = (impact, id) => ({ id, impact, help: `${id} help`, nodes: [{ target: ['main'] }, { target: ['#a'] }, { target: ['#b'] }, { target: ['#c'] }] });
    expect(seriousViolations([v('critical', 'label'), v('serious', 'color-contrast'), v('moderate', 'region'), v('minor', 'x')], '/p (light)')).toEqual([
      '/p (light): axe critical label (label help) at main | #a | #b and 1 more',
      '/p (light): axe serious color-contrast (color-contrast help) at main | #a | #b and 1 more',
    ]);
  });

  it('finds the sign-in link in an email, and the last lines of npm run dev', () => {
    const eml = 'Subject: Your sign-in link\r\n\r\nSign in ...:\r\n\r\nhttp://dashboard.localhost:1/sign-in#token=a.b.c\r\n\r\nOr exchange ...';
    expect(signInLinkOf(eml)).toBe('http://dashboard.localhost:1/sign-in#token=a.b.c');
    expect(signInLinkOf('no link')).toBeNull();
    expect(devReadyLines('Demo data: ...\n')).toBeNull();
    expect(devReadyLines('x\nDashboard: http://dashboard.localhost:1\nSign in to the dashboard as a (...):\n  http://dashboard.localhost:1/sign-in#token=t\n'))
      .toEqual({ dashboard: 'http://dashboard.localhost:1', link: 'http://dashboard.localhost:1/sign-in#token=t' });
  });
});

describe('exported files', () => {
  const bytes = (text) => Buffer.from(text, 'latin1');

  it('accepts each format by its first bytes', () => {
    expect(exportProblem('pdf', bytes('%PDF-1.7\n%âãÏÓ'))).toBeNull();
    expect(exportProblem('xlsx', bytes('PK\x03\x04\x14\x00\x00\x00[Content_Types].xmlxl/workbook.xml'))).toBeNull();
    expect(exportProblem('pptx', bytes('PK\x03\x04\x14\x00\x00\x00ppt/presentation.xml'))).toBeNull();
    expect(exportProblem('csv', Buffer.from('\uFEFFsection,Name,Kind\r\nred,RSA,algorithm\r\n'))).toBeNull();
    expect(exportProblem('html', bytes('<!DOCTYPE html><html lang="en">'))).toBeNull();
    expect(exportProblem('json', bytes('{"report_id":"x"}'))).toBeNull();
    expect(exportProblem('cyclonedx', bytes('{\n  "bomFormat": "CycloneDX", "specVersion": "1.6"}'))).toBeNull();
    expect(EXPORT_FORMATS.sort()).toEqual(['csv', 'cyclonedx', 'html', 'json', 'pdf', 'pptx', 'xlsx']);
  });

  it('says what is wrong otherwise', () => {
    expect(exportProblem('pdf', bytes('<!doctype html>'))).toMatch(/starts with "<!doctype html>", not %PDF-/);
    expect(exportProblem('xlsx', bytes('PK\x03\x04ppt/slides'))).toMatch(/holds no xl\//);
    expect(exportProblem('json', bytes('[]'))).toMatch(/not \{/);
    expect(exportProblem('cyclonedx', bytes('{"report_id":"x"}'))).toMatch(/holds no "bomFormat"/);
    expect(exportProblem('csv', bytes(''))).toMatch(/empty/);
    expect(exportProblem('docx', bytes('PK'))).toMatch(/no known shape/);
  });
});
