// The pieces pages share: tables (caption, header scopes), pagers, empty states, tags (a word beside
// every colour), times in the person's zone, notices, form fields with their errors tied to them, and
// confirmation dialogs that also work as plain forms.
import type { Child } from 'hono/jsx';
import { formatTime } from '../format';

export interface Column<Row> {
  label: string;
  cell: (row: Row) => Child;
  numeric?: boolean;
}

/**
 * A wide table scrolls sideways inside its box: the box is a named region in the Tab order (the caption
 * names it), so a keyboard can scroll it too (WCAG 2.1.1; axe's scrollable-region-focusable).
 */
export function TableBox(props: { captionId: string; id?: string; children: Child }) {
  return <div class="table-box" id={props.id} role="region" aria-labelledby={props.captionId} tabindex={0}>{props.children}</div>;
}

/** An id for a table's caption, unique in the page. */
export const captionId = () => `caption-${crypto.randomUUID().slice(0, 8)}`;

export function Table<Row>(props: { caption: Child; columns: Column<Row>[]; rows: Row[]; id?: string; captionHidden?: boolean }) {
  const caption = captionId();
  return (
    <TableBox id={props.id} captionId={caption}>
      <table>
        <caption id={caption} class={props.captionHidden ? 'visually-hidden' : undefined}>{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((col) => (
              <th scope="col" class={col.numeric ? 'num' : undefined}>{col.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr>
              {props.columns.map((col, i) =>
                i === 0 ? <th scope="row" class={col.numeric ? 'num' : undefined}>{col.cell(row)}</th> : <td class={col.numeric ? 'num' : undefined}>{col.cell(row)}</td>,
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </TableBox>
  );
}

/**
 * Where a list is and the links on: `next`/`previous` are complete hrefs (cursor or page), absent at the
 * ends; `linked` adds attributes to each link (htmx swapping the list in place, say).
 */
export function Pager(props: { shown: string; previous?: string | null; next?: string | null; label?: string; linked?: (href: string) => Record<string, string> }) {
  const extra = (href: string) => props.linked?.(href) ?? {};
  return (
    <nav class="pager" aria-label={props.label ?? 'Pages'}>
      <span aria-live="polite">{props.shown}</span>
      <span class="actions-inline">
        {props.previous ? <a href={props.previous} rel="prev" {...extra(props.previous)}>Previous</a> : null}
        {props.previous && props.next ? ' · ' : null}
        {props.next ? <a href={props.next} rel="next" {...extra(props.next)}>Next</a> : null}
      </span>
    </nav>
  );
}

/** An empty list says what to do next. */
export function Empty(props: { children: Child }) {
  return <div class="empty">{props.children}</div>;
}

/** A state or band: its word always shown; the colour class follows the word. */
export function Tag(props: { value: string | null | undefined; label?: string }) {
  const value = props.value ?? 'none';
  return <span class={`tag tag-${value.toLowerCase().replace(/[^a-z]+/g, '-')}`}>{props.label ?? value}</span>;
}

export function Time(props: { iso: string | null | undefined; timezone: string }) {
  if (!props.iso) return <span class="muted">never</span>;
  return <time datetime={props.iso}>{formatTime(props.iso, props.timezone)}</time>;
}

export function Notice(props: { kind: 'info' | 'warn' | 'error'; children: Child; live?: boolean }) {
  return (
    <div class={`callout callout-${props.kind}`} role={props.kind === 'error' ? 'alert' : props.live ? 'status' : undefined}>
      {props.children}
    </div>
  );
}

/** A labelled input with its hint and its error tied to it (aria-describedby, aria-invalid). */
export function Field(props: {
  name: string; label: string; value?: string; type?: string; hint?: string; error?: string; required?: boolean;
  id?: string; maxlength?: number; min?: number; max?: number; autocomplete?: string; inputmode?: 'numeric' | 'email' | 'url';
}) {
  const id = props.id ?? `field-${props.name}`;
  const described = [props.error ? `${id}-error` : null, props.hint ? `${id}-hint` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label class="label" for={id}>{props.label}</label>
      {props.hint ? <p class="hint" id={`${id}-hint`}>{props.hint}</p> : null}
      {props.error ? <p class="field-error" id={`${id}-error`}>{props.error}</p> : null}
      <input
        class="input" id={id} name={props.name} type={props.type ?? 'text'} value={props.value ?? ''} required={props.required}
        maxlength={props.maxlength} min={props.min} max={props.max} autocomplete={props.autocomplete ?? 'off'} inputmode={props.inputmode}
        aria-describedby={described} aria-invalid={props.error ? 'true' : undefined}
      />
    </div>
  );
}

/**
 * A destructive or weighty action: a button opening a native dialog that asks to confirm (ui.js), whose
 * form posts the action. Without script the button is the form's own submit (the dialog's markup stays
 * closed and unused), so the action still works. `subject` names what a row's button acts on (read by
 * screen readers, not shown), so a list of "Remove" buttons is told apart.
 */
export function ConfirmAction(props: { id: string; action: string; label: string; title: string; children?: Child; danger?: boolean; fields?: Record<string, string>; subject?: string }) {
  const hidden = Object.entries(props.fields ?? {}).map(([name, value]) => <input type="hidden" name={name} value={value} />);
  return (
    <>
      <form method="post" action={props.action} class="inline">
        {hidden}
        <button type="submit" class={`btn btn-small ${props.danger ? 'btn-danger' : 'btn-secondary'}`} data-dialog={props.id}>
          {props.label}
          {props.subject ? <span class="visually-hidden">{` ${props.subject}`}</span> : null}
        </button>
      </form>
      <dialog id={props.id} aria-labelledby={`${props.id}-title`}>
        <h2 id={`${props.id}-title`}>{props.title}</h2>
        {props.children}
        <form method="post" action={props.action} class="actions">
          {hidden}
          <button type="button" class="btn btn-secondary" data-close="">Cancel</button>
          <button type="submit" class={`btn ${props.danger ? 'btn-danger' : 'btn-primary'}`}>{props.label}</button>
        </form>
      </dialog>
    </>
  );
}

export function PageTitle(props: { title: Child; crumbs?: { href: string; label: string }[]; children?: Child }) {
  return (
    <>
      {props.crumbs?.length ? (
        <p class="crumbs">
          {props.crumbs.map((c, i) => (
            <>
              {i ? ' / ' : null}
              <a href={c.href}>{c.label}</a>
            </>
          ))}
        </p>
      ) : null}
      <h1>{props.title}</h1>
      {props.children}
    </>
  );
}
