// The frame of every signed-in page: a skip link, the header (brand, organization, project switcher,
// profile, theme, sign-out), the navigation of the areas, and the page's `<main>` with its one `<h1>`.
// Every control is a plain link or form (works without script); htmx and its extensions are loaded with
// the page's nonce, which hx-csp requires on every htmx element (see `hx`).
import type { Child } from 'hono/jsx';
import { BrandMark, STYLESHEET } from '../../mcp/pages/layout';
import { AREAS, areaHref } from '../areas';
import { ASSET_PATHS } from '../assets.gen';
import { holds, type Frame } from '../context';

/**
 * htmx's settings: the two extensions by the names they register (`hx-csp`, and `sse` for hx-sse.js: an
 * unlisted name is never loaded, and live updates would silently not connect), its indicator styles from
 * our stylesheet (no constructed sheet).
 */
const HTMX_CONFIG = 'extensions:"hx-csp,sse", includeIndicatorCSS:false';

export interface ShellProps {
  frame: Frame;
  nonce: string;
  title: string;
  /** The area's label in AREAS, marked current in the navigation. */
  area?: string;
  children: Child;
}

export function Shell(props: ShellProps) {
  const { frame } = props;
  const project = frame.projects.find((p) => p.id === frame.projectId);
  return (
    <html lang="en" data-theme={frame.theme === 'system' ? undefined : frame.theme}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <meta name="color-scheme" content={frame.theme === 'system' ? 'light dark' : frame.theme} />
        <meta name="htmx-config" content={HTMX_CONFIG} />
        <title>{project ? `${props.title} · ${project.name} · Posture` : `${props.title} · Posture`}</title>
        <link rel="stylesheet" href={STYLESHEET} />
        {/* No favicon request (a data: URL the CSP allows). */}
        <link rel="icon" href="data:," />
        <script src={ASSET_PATHS['htmx.js']} nonce={props.nonce} defer />
        <script src={ASSET_PATHS['hx-csp.js']} nonce={props.nonce} defer />
        <script src={ASSET_PATHS['hx-sse.js']} nonce={props.nonce} defer />
        <script src={ASSET_PATHS['ui.js']} nonce={props.nonce} defer />
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <a class="brand" href="/">
            <BrandMark />
            <span class="brand-name">Posture</span>
          </a>
          <div class="where">
            <a href="/organizations" class="wrap" title="Switch organization">{frame.orgName}</a>
            {frame.projects.length ? (
              <form method="get" action="/projects/go" aria-label="Switch project">
                <label class="visually-hidden" for="project-switch">Project</label>
                <select class="select" id="project-switch" name="project">
                  {frame.projects.map((p) => (
                    <option value={p.id} selected={p.id === frame.projectId}>{p.name}</option>
                  ))}
                </select>
                <button type="submit" class="btn btn-secondary btn-small">Open</button>
              </form>
            ) : null}
          </div>
          <div class="me">
            <a href="/profile" class="wrap">{frame.user.name || frame.user.email}</a>
            <form method="post" action="/preferences/theme" class="inline">
              <label class="visually-hidden" for="theme">Theme</label>
              <select class="select btn-small" id="theme" name="theme">
                {(['system', 'light', 'dark'] as const).map((t) => (
                  <option value={t} selected={t === frame.theme}>{t === 'system' ? 'System theme' : t === 'light' ? 'Light' : 'Dark'}</option>
                ))}
              </select>
              <button type="submit" class="btn btn-secondary btn-small">Apply</button>
            </form>
            <form method="post" action="/sign-out" class="inline">
              <button type="submit" class="btn btn-secondary btn-small">Sign out</button>
            </form>
          </div>
        </header>
        <nav class="nav" aria-label="Areas">
          {AREAS.filter((a) => !a.permission || holds(frame, a.permission)).map((a) => {
            const href = areaHref(a, frame.projectId);
            return href ? <a href={href} aria-current={a.label === props.area ? 'page' : undefined}>{a.label}</a> : null;
          })}
        </nav>
        <main id="main" class="main" tabindex={-1}>
          {props.children}
        </main>
      </body>
    </html>
  );
}

/** The attributes an htmx element needs besides its own: the page's nonce (hx-csp strips htmx attributes without it). */
export const hx = (nonce: string, attributes: Record<string, string>): Record<string, string> => ({ ...attributes, 'hx-nonce': nonce });
