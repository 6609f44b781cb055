// The MCP server's OAuth pages (src/mcp/pages), rendered with hostile values and read back with a real HTML
// parser (parse5): client text comes back as the very same text (escaped, never markup), nothing can run or
// fetch, every page has its landmarks and one <h1>, every visible control has a label, and the forms carry
// the hidden fields, the organization choice, the scopes and the decisions the handlers read.
import { parse } from 'parse5';
import type { DefaultTreeAdapterTypes } from 'parse5';
import { describe, expect, it } from 'vitest';
import { STYLESHEET } from '../../src/mcp/pages/layout';
import { elements, textOf } from '../html';
import { CONTINUE_PAGE_CSP, CONTINUE_SCRIPT, PAGE_CSP, approvePage, checkEmailPage, continuePage, messagePage, signInPage } from '../../src/mcp/pages';
import type { ClientFacts, ScopeChoice } from '../../src/mcp/pages';

type Element = DefaultTreeAdapterTypes.Element;
type Node = DefaultTreeAdapterTypes.Node;

const SCRIPT = '<script>alert(1)</script>';
const HOSTILE = `${SCRIPT} "double" 'single' & <b>bold</b> https://evil.example/x?a=1&b=2`;
const NON_LATIN = 'Ассистент 助手';

/** Client data, each value distinct so a test can tell where it landed. */
const client: ClientFacts = {
  clientName: `${NON_LATIN} ${HOSTILE}`,
  redirectHost: `host"><img src=x onerror=alert(1)>.example`,
  redirectIsLoopback: false,
};
const ACTION = `/mcp/oauth/x?next="'><script>alert(2)</script>&y=1`;
const REQUEST_ID = `req"'<&>${SCRIPT}`;
const HANDLE = `handle"'<&>${SCRIPT}`;
const EMAIL = `a"b'<c>&d@example.com`;

/** Every string a test passes in: the only places an http(s) URL may appear (as escaped text). */
const CLIENT_STRINGS = [client.clientName, client.redirectHost, ACTION, REQUEST_ID, HANDLE, EMAIL, HOSTILE, NON_LATIN, SCRIPT];

/** The escaping hono/jsx applies to text and attribute values. */
const escaped = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');


/** Elements that start a new line: their text is set apart from their neighbours' when read as one string. */
const BLOCKS = new Set(['p', 'div', 'section', 'header', 'main', 'footer', 'h1', 'ul', 'li', 'dl', 'dt', 'dd', 'form', 'fieldset', 'legend', 'option', 'button']);

function readableText(node: Node, top = true): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterTypes.TextNode).value;
  if (!('childNodes' in node)) return '';
  if (!top && 'tagName' in node && ['style', 'title', 'script'].includes(node.tagName)) return '';
  const inner = node.childNodes.map((child) => readableText(child, false)).join('');
  return 'tagName' in node && BLOCKS.has(node.tagName) ? ` ${inner} ` : inner;
}

/** Text as a reader sees it: blocks apart, runs of white space as one space, no style sheet. */
const shown = (node: Node) => readableText(node).replace(/\s+/g, ' ').trim();

const attr = (element: Element, name: string) => element.attrs.find((a) => a.name === name)?.value;
const has = (element: Element, name: string) => element.attrs.some((a) => a.name === name);

function isInside(element: Element, tagName: string): boolean {
  for (let parent = element.parentNode; parent && 'tagName' in parent; parent = parent.parentNode) if (parent.tagName === tagName) return true;
  return false;
}

function page(html: string) {
  const document = parse(html);
  const all = elements(document);
  const tags = (tagName: string) => all.filter((e) => e.tagName === tagName);
  const byId = (id: string) => all.find((e) => attr(e, 'id') === id);
  const inputs = (name: string) => tags('input').filter((e) => attr(e, 'name') === name);
  const hidden = (name: string) => {
    const found = inputs(name).filter((e) => attr(e, 'type') === 'hidden');
    expect(found, `one hidden input ${name}`).toHaveLength(1);
    return attr(found[0]!, 'value');
  };
  return { html, document, all, tags, byId, inputs, hidden, text: shown(document) };
}
type Page = ReturnType<typeof page>;

/**
 * What every page must be: a complete, self-contained, accessible document without inline script. Only a
 * page given `script` loads one: that file of this origin, deferred, from the head, with nothing inline.
 */
function expectSoundPage(p: Page, options: { script?: string } = {}) {
  const { html, tags } = p;
  expect(html.startsWith('<!doctype html>')).toBe(true);
  expect(p.document.mode).toBe('no-quirks');

  // Nothing runs: no script element (but the one named), no event handler attribute, no javascript: URL, nothing raw.
  const scripts = tags('script');
  expect((html.match(/<script/gi) ?? []).length, 'script tags').toBe(options.script ? 1 : 0);
  expect(scripts).toHaveLength(options.script ? 1 : 0);
  for (const script of scripts) {
    expect(script.attrs.map((a) => [a.name, a.value])).toEqual([['src', options.script], ['defer', '']]);
    expect(script.childNodes).toHaveLength(0);
    expect(isInside(script, 'head')).toBe(true);
  }
  for (const element of p.all) {
    for (const a of element.attrs) {
      expect(a.name.startsWith('on'), `${element.tagName} ${a.name}`).toBe(false);
      expect(a.value.trim().toLowerCase().startsWith('javascript:')).toBe(false);
    }
  }
  // Client markup never became elements.
  expect(tags('img')).toHaveLength(0);
  expect(tags('b')).toHaveLength(0);

  // Nothing is fetched: no http(s) URL anywhere but inside the (escaped) client text, no external style.
  let rest = html;
  for (const value of CLIENT_STRINGS) rest = rest.replaceAll(escaped(value), '');
  expect(rest).not.toMatch(/https?:\/\//i);
  expect(rest).not.toMatch(/\/\/[a-z0-9.-]+\.[a-z]{2,}\//i);
  // The one stylesheet: the static asset of this origin (its content is checked in "the stylesheet").
  // and an empty data: icon, so the browser asks for no favicon.
  const links = tags('link').map((l) => [attr(l, 'rel'), attr(l, 'href')]);
  expect(links).toEqual([['stylesheet', STYLESHEET], ['icon', 'data:,']]);
  expect(tags('iframe')).toHaveLength(0);
  expect(tags('style')).toHaveLength(0);
  for (const element of p.all) if (element.tagName !== 'script') expect(attr(element, 'src'), element.tagName).toBeUndefined();
  // SVG icons are inline, without a namespace URL (HTML parsing puts them in the SVG namespace anyway).
  for (const svg of tags('svg')) expect(attr(svg, 'aria-hidden')).toBe('true');

  // The document's head.
  const html_ = tags('html');
  expect(html_).toHaveLength(1);
  expect(attr(html_[0]!, 'lang')).toBe('en');
  const metas = tags('meta');
  expect(metas.some((m) => attr(m, 'charset') === 'utf-8')).toBe(true);
  expect(metas.some((m) => attr(m, 'name') === 'viewport' && attr(m, 'content') === 'width=device-width, initial-scale=1')).toBe(true);
  expect(metas.some((m) => attr(m, 'name') === 'robots' && attr(m, 'content') === 'noindex')).toBe(true);
  for (const m of metas) expect(isInside(m, 'head'), 'meta in head').toBe(true);
  const titles = tags('title');
  expect(titles).toHaveLength(1);
  expect(isInside(titles[0]!, 'head')).toBe(true);
  expect(shown(titles[0]!)).toMatch(/\S · Posture$/);

  // The body: the brand, one <main>, one <h1> inside it.
  expect(tags('main')).toHaveLength(1);
  const h1s = tags('h1');
  expect(h1s).toHaveLength(1);
  expect(isInside(h1s[0]!, 'main')).toBe(true);
  expect(shown(tags('header')[0]!)).toBe('Posture');

  // Every control a person uses has a label (a <label for> or an enclosing <label>) with text.
  for (const control of [...tags('input'), ...tags('select'), ...tags('textarea')]) {
    if (attr(control, 'type') === 'hidden') continue;
    const id = attr(control, 'id');
    const label = tags('label').find((l) => id !== undefined && attr(l, 'for') === id) ?? (isInside(control, 'label') ? control : undefined);
    expect(label, `label for ${control.tagName} ${attr(control, 'name')}`).toBeDefined();
    expect(shown(label!).length).toBeGreaterThan(0);
    // aria-describedby points at elements that exist.
    for (const ref of (attr(control, 'aria-describedby') ?? '').split(' ').filter(Boolean)) expect(p.byId(ref), ref).toBeDefined();
  }
  // Ids are unique; every button says what it does and submits explicitly.
  const ids = p.all.map((e) => attr(e, 'id')).filter((id) => id !== undefined);
  expect(new Set(ids).size).toBe(ids.length);
  for (const button of tags('button')) {
    expect(attr(button, 'type')).toBe('submit');
    expect(shown(button).length).toBeGreaterThan(0);
  }
  // Forms POST, and only inside <main>.
  for (const form of tags('form')) {
    expect(attr(form, 'method')).toBe('post');
    expect(attr(form, 'action')).toBe(ACTION);
    expect(isInside(form, 'main')).toBe(true);
  }
}

/** The client facts block: the name as text marked unverified, the destination, the loopback warning when asked. */
function expectClientFacts(p: Page, facts: ClientFacts) {
  const section = p.tags('section').find((s) => attr(s, 'class') === 'client');
  expect(section).toBeDefined();
  const text = shown(section!);
  expect(text).toContain(`${facts.clientName} Unverified`);
  expect(text).toContain('Posture has not verified it');
  expect(text).toContain(`Access will be sent to ${facts.redirectHost}`);
  const warning = 'Continue only if you just started connecting from this app.';
  if (facts.redirectIsLoopback) expect(text).toContain(warning);
  else expect(p.text).not.toContain(warning);
}

const ORGS = [
  { id: 'org-1', name: `Acme "Corp" & <Sons>` },
  { id: `org"2'<x>`, name: NON_LATIN },
  { id: 'org-3', name: 'Third' },
];
const SCOPES: ScopeChoice[] = [
  { value: 'projects:read', label: 'Read projects and reports', description: `See ${HOSTILE}`, checked: true },
  { value: `weird"'<&>`, label: `Label ${SCRIPT}`, description: NON_LATIN, checked: false },
  { value: 'surveys:write', label: 'Start surveys', description: 'Upload bundles and start analyses.', checked: true },
];
const PERSON = { email: EMAIL, name: `Zoë "Z" <Ли> & Co` };

function approve(overrides: Partial<Parameters<typeof approvePage>[0]> = {}) {
  return page(
    approvePage({
      ...client,
      action: ACTION,
      requestId: REQUEST_ID,
      handle: HANDLE,
      person: PERSON,
      organizations: ORGS,
      scopes: SCOPES,
      ...overrides,
    }),
  );
}

describe('MCP OAuth pages', () => {
  it('PAGE_CSP allows the stylesheet of this origin and data: images only, no framing, no <base>', () => {
    expect(PAGE_CSP).toBe("default-src 'none'; style-src 'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'");
    expect(PAGE_CSP).not.toContain('form-action');
  });

  it('CONTINUE_PAGE_CSP adds scripts of this origin only (no inline script, no eval)', () => {
    expect(CONTINUE_PAGE_CSP).toBe("default-src 'none'; script-src 'self'; style-src 'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'");
    expect(CONTINUE_SCRIPT).toBe('/authorize/continue.js');
  });

  describe('sign-in page', () => {
    const input = { ...client, action: ACTION, requestId: REQUEST_ID };

    it('asks for an email address, with the client facts and the hidden request', () => {
      const p = page(signInPage({ ...input, email: EMAIL }));
      expectSoundPage(p);
      expect(shown(p.tags('h1')[0]!)).toBe(`Sign in to connect ${client.clientName} to Posture`);
      expectClientFacts(p, client);
      expect(p.hidden('request')).toBe(REQUEST_ID);

      const email = p.byId('email')!;
      expect(email.tagName).toBe('input');
      expect(attr(email, 'type')).toBe('email');
      expect(attr(email, 'name')).toBe('email');
      expect(attr(email, 'autocomplete')).toBe('email');
      expect(has(email, 'required')).toBe(true);
      expect(attr(email, 'value')).toBe(EMAIL);
      expect(has(email, 'aria-invalid')).toBe(false);
      expect(shown(p.tags('label').find((l) => attr(l, 'for') === 'email')!)).toBe('Email address');
      expect(p.tags('button').map(shown)).toEqual(['Email me a sign-in link']);

      // No error: nothing announced.
      expect(p.html).not.toContain('role="alert"');
      expect(p.all.some((e) => attr(e, 'role') === 'alert')).toBe(false);
    });

    it('shows an error above the field, announced and tied to it', () => {
      const error = `Enter a valid email address. ${SCRIPT}`;
      const p = page(signInPage({ ...input, email: 'nope', error }));
      expectSoundPage(p);
      const alerts = p.all.filter((e) => attr(e, 'role') === 'alert');
      expect(alerts).toHaveLength(1);
      expect(shown(alerts[0]!)).toBe(error);
      const email = p.byId('email')!;
      const errorId = attr(alerts[0]!, 'id')!;
      expect(attr(email, 'aria-describedby')!.split(' ')).toContain(errorId);
      expect(attr(email, 'aria-invalid')).toBe('true');
      expect(p.all.indexOf(alerts[0]!)).toBeLessThan(p.all.indexOf(email));
    });

    it('starts empty without an email, and warns about an app on this computer', () => {
      const facts = { ...client, clientName: 'Claude Desktop', redirectHost: '127.0.0.1', redirectIsLoopback: true };
      const p = page(signInPage({ ...facts, action: ACTION, requestId: REQUEST_ID }));
      expectSoundPage(p);
      expectClientFacts(p, facts);
      expect(attr(p.byId('email')!, 'value')).toBe('');
      expect(p.all.some((e) => attr(e, 'role') === 'alert')).toBe(false);
    });
  });

  it('check-email page: where the link went and how to use it', () => {
    const p = page(checkEmailPage({ email: EMAIL }));
    expectSoundPage(p);
    expect(shown(p.tags('h1')[0]!)).toBe('Check your email');
    expect(p.text).toContain(`We sent a sign-in link to ${EMAIL}, if that address can sign in to Posture.`);
    expect(p.text).toContain('Open the link in this same browser.');
    expect(p.text).toContain('valid for 15 minutes and works once');
    // The local-development hint only where the service runs locally.
    expect(p.text).not.toContain('wrangler dev');
    expect(page(checkEmailPage({ email: EMAIL, local: true })).text).toContain('wrangler dev');
    expect(p.tags('form')).toHaveLength(0);
    expect(p.all.some((e) => attr(e, 'role') === 'alert')).toBe(false);
  });

  it('continue page: one button that POSTs the request and the token its script reads from the link\'s fragment', () => {
    const facts = { ...client, redirectIsLoopback: true };
    const p = page(continuePage({ ...facts, action: ACTION, requestId: REQUEST_ID }));
    expectSoundPage(p, { script: CONTINUE_SCRIPT });
    expect(shown(p.tags('h1')[0]!)).toBe('Continue signing in');
    expectClientFacts(p, facts);
    expect(p.tags('form')).toHaveLength(1);
    expect(p.hidden('request')).toBe(REQUEST_ID);
    // The token never reaches the server with the page's request: the field starts empty.
    expect(p.hidden('token')).toBe('');
    expect(p.html).toContain('<noscript>');
    expect(p.text).toContain('This page needs JavaScript to read the sign-in link.');
    expect(p.tags('input').filter((e) => attr(e, 'type') !== 'hidden')).toHaveLength(0);
    expect(p.tags('button').map(shown)).toEqual(['Continue']);
    expect(p.all.some((e) => attr(e, 'role') === 'alert')).toBe(false);
  });

  describe('approval page', () => {
    it('asks to allow the client as the person, with the facts, the hidden fields and the two decisions', () => {
      const p = approve();
      expectSoundPage(p);
      expect(shown(p.tags('h1')[0]!)).toBe(`Allow ${client.clientName} to use Posture as ${EMAIL}?`);
      expect(p.text).toContain(`Signed in as ${PERSON.name}.`);
      expectClientFacts(p, client);
      expect(p.tags('form')).toHaveLength(1);
      expect(p.hidden('request')).toBe(REQUEST_ID);
      expect(p.hidden('handle')).toBe(HANDLE);
      expect(p.text).toContain(
        "The assistant acts with your own permissions and never more. You can disconnect it at any time from a project's Credentials area (Connected apps).",
      );

      const buttons = p.tags('button');
      expect(buttons.map((b) => [attr(b, 'name'), attr(b, 'value'), shown(b)])).toEqual([
        ['decision', 'deny', 'Deny'],
        ['decision', 'approve', 'Allow'],
      ]);
      // Deny submits without the form's validation (a required, unchosen organization must not block it).
      expect(has(buttons[0]!, 'formnovalidate')).toBe(true);
      expect(has(buttons[1]!, 'disabled')).toBe(false);
      expect(attr(buttons[1]!, 'class')).toContain('btn-primary');
      expect(p.all.some((e) => attr(e, 'role') === 'alert')).toBe(false);
    });

    it('offers the scopes as labelled checkboxes with their descriptions and checked state', () => {
      const p = approve();
      const fieldsets = p.tags('fieldset');
      expect(fieldsets).toHaveLength(1);
      const legend = p.tags('legend');
      expect(legend.map(shown)).toEqual(['Allow the assistant to']);
      const boxes = p.inputs('scope');
      expect(boxes.map((b) => [attr(b, 'type'), attr(b, 'value'), has(b, 'checked')])).toEqual(
        SCOPES.map((s) => ['checkbox', s.value, s.checked]),
      );
      for (const [index, box] of boxes.entries()) {
        expect(isInside(box, 'fieldset')).toBe(true);
        const label = p.tags('label').find((l) => attr(l, 'for') === attr(box, 'id'))!;
        expect(shown(label)).toBe(SCOPES[index]!.label);
        const description = p.byId(attr(box, 'aria-describedby')!)!;
        expect(shown(description)).toBe(SCOPES[index]!.description);
      }
    });

    it('several organizations: a required, labelled select, the chosen one selected', () => {
      const p = approve({ selectedOrgId: ORGS[1]!.id });
      expectSoundPage(p);
      const selects = p.tags('select');
      expect(selects).toHaveLength(1);
      const select = selects[0]!;
      expect(attr(select, 'name')).toBe('org');
      expect(has(select, 'required')).toBe(true);
      expect(shown(p.tags('label').find((l) => attr(l, 'for') === attr(select, 'id'))!)).toBe('Organization');
      const options = p.tags('option');
      expect(options.map((o) => [attr(o, 'value'), shown(o), has(o, 'selected')])).toEqual(ORGS.map((o, i) => [o.id, o.name, i === 1]));
      expect(p.inputs('org')).toHaveLength(0);
    });

    it('several organizations, none chosen (or an unknown one): an empty first choice', () => {
      for (const selectedOrgId of [undefined, 'not-a-member']) {
        const p = approve({ selectedOrgId });
        const options = p.tags('option');
        expect(options.map((o) => [attr(o, 'value'), has(o, 'selected')])).toEqual([['', true], ...ORGS.map((o) => [o.id, false])]);
      }
    });

    it('one organization: shown as text with a hidden input', () => {
      const only = ORGS[0]!;
      const p = approve({ organizations: [only], selectedOrgId: undefined });
      expectSoundPage(p);
      expect(p.tags('select')).toHaveLength(0);
      expect(p.hidden('org')).toBe(only.id);
      expect(p.text).toContain(`Organization ${only.name}`);
    });

    it('an error (the last submission refused) is announced above the choices; none without one', () => {
      const error = `Choose at least one permission. ${SCRIPT}`;
      const p = approve({ error });
      expectSoundPage(p);
      const alerts = p.all.filter((e) => attr(e, 'role') === 'alert');
      expect(alerts.map(shown)).toEqual([error]);
      expect(isInside(alerts[0]!, 'form')).toBe(true);
      expect(p.all.indexOf(alerts[0]!)).toBeLessThan(p.all.indexOf(p.tags('fieldset')[0]!));
      for (const blank of [undefined, '', '  ']) expect(approve({ error: blank }).html).not.toContain('role="alert"');
    });

    it('a loopback redirect is warned about; no scopes and no organization still render', () => {
      const facts = { ...client, redirectHost: 'localhost', redirectIsLoopback: true };
      const p = approve({ ...facts, scopes: [], organizations: [] });
      expectSoundPage(p);
      expectClientFacts(p, facts);
      expect(p.inputs('scope')).toHaveLength(0);
      expect(p.inputs('org')).toHaveLength(0);
      // Nothing to allow without an organization; Deny still works.
      const allow = p.tags('button').find((b) => attr(b, 'value') === 'approve')!;
      expect(has(allow, 'disabled')).toBe(true);
    });
  });

  describe('message page', () => {
    it('shows the title, the message and a "Start again" link', () => {
      const title = `Link expired ${SCRIPT}`;
      const message = `This sign-in link has expired or was already used. ${HOSTILE}`;
      const retryHref = `/mcp/authorize?x="'<>&y`;
      for (const status of ['error', 'info', undefined] as const) {
        const p = page(messagePage({ title, message, status, retryHref }));
        expectSoundPage(p);
        expect(shown(p.tags('h1')[0]!)).toBe(title);
        expect(shown(p.tags('title')[0]!)).toBe(`${title} · Posture`);
        expect(p.text).toContain(message);
        const links = p.tags('a');
        expect(links.map((a) => [attr(a, 'href'), shown(a)])).toEqual([[retryHref, 'Start again']]);
        expect(p.all.some((e) => attr(e, 'role') === 'alert')).toBe(false);
        expect(p.tags('svg').map((s) => attr(s, 'class'))).toContain(status === 'error' ? 'icon icon-error' : 'icon icon-info');
      }
    });

    it('without a retry link (or with a script URL) has no link', () => {
      for (const retryHref of [undefined, '', 'javascript:alert(1)', ' JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', 'data:text/html,x']) {
        const p = page(messagePage({ title: 'Request denied', message: 'Nothing was shared.', retryHref }));
        expectSoundPage(p);
        expect(p.tags('a')).toHaveLength(0);
      }
    });
  });
});
