import type { JSX } from 'hono/jsx/jsx-runtime';

/** A page as a complete HTML document; every component is synchronous. */
export function renderPage(page: JSX.Element): string {
  const html = page.toString();
  if (typeof html !== 'string') throw new Error('Dashboard pages must render synchronously');
  return '<!doctype html>' + html;
}
