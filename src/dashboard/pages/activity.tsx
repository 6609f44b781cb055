// The organization's activity log (spec 4.14): who did what, filtered by a project (or organization-level
// entries only), a person and actions (the API's own `availableActions`), sorted by time or action,
// paged by the API's cursors, each entry with its trace id. The filters, the sort and the cursor live in
// the URL; htmx swaps only the list when the filters or the page change (the links work without it).
import { Hono } from 'hono';
import type { Child } from 'hono/jsx';
import { api } from '../api';
import { Empty, PageTitle, Pager, Table, Tag, Time } from '../components/common';
import { hx } from '../components/shell';
import type { DashContext, DashEnv, Frame } from '../context';
import { formatCount } from '../format';
import type { ActivityEntry } from '../../control/activity-query';
import { fragment, shellPage, wantsFragment } from '../respond';
import { UUID_PATTERN } from '../../lib/ids';

// The API's own entry type: the page reads what the API sends.
type Entry = ActivityEntry;
interface ActivityPage { entries: Entry[]; availableActions: string[]; pagination: { firstId: string | null; lastId: string | null; hasMore: boolean; total: number } }
interface Members { users: { id: string; email: string; name: string }[] }

/** Entries on one page (the lists show at most 100 rows). */
export const ACTIVITY_PAGE_SIZE = 50;
const ACTION = /^[a-z_.]{1,64}$/;

/** What the address asks for: only well-formed values go on to the API (which judges the rest). */
export interface ActivityFilters {
  project: string;
  person: string;
  actions: string[];
  sort: 'createdAt' | 'action';
  dir: 'asc' | 'desc';
  after?: string;
  before?: string;
}

export function filtersOf(url: URL): ActivityFilters {
  const q = url.searchParams;
  const project = q.get('project') ?? '';
  const person = q.get('person') ?? '';
  const cursor = (name: string) => {
    const value = q.get(name) ?? '';
    return UUID_PATTERN.test(value) ? value.toLowerCase() : undefined;
  };
  const after = cursor('after');
  return {
    project: project === 'none' || UUID_PATTERN.test(project) ? project.toLowerCase() : '',
    person: UUID_PATTERN.test(person) ? person.toLowerCase() : '',
    actions: [...new Set(q.getAll('action').flatMap((a) => a.split(',')).map((a) => a.trim()).filter((a) => ACTION.test(a)))],
    sort: q.get('sort') === 'action' ? 'action' : 'createdAt',
    dir: q.get('dir') === 'asc' ? 'asc' : 'desc',
    after,
    before: after ? undefined : cursor('before'),
  };
}

/** The API's query for these filters. */
export function apiQuery(f: ActivityFilters): string {
  const q = new URLSearchParams({ limit: String(ACTIVITY_PAGE_SIZE), sortBy: f.sort, sortDir: f.dir });
  if (f.project) q.set('projectId', f.project);
  if (f.person) q.set('userId', f.person);
  if (f.actions.length) q.set('actions', f.actions.join(','));
  if (f.after) q.set('after', f.after);
  if (f.before) q.set('before', f.before);
  return q.toString();
}

/** This page's address with these filters (and a cursor). */
export function hrefOf(f: ActivityFilters, cursor?: { after?: string; before?: string }): string {
  const q = new URLSearchParams();
  if (f.project) q.set('project', f.project);
  if (f.person) q.set('person', f.person);
  for (const action of f.actions) q.append('action', action);
  if (f.sort !== 'createdAt') q.set('sort', f.sort);
  if (f.dir !== 'desc') q.set('dir', f.dir);
  if (cursor?.after) q.set('after', cursor.after);
  if (cursor?.before) q.set('before', cursor.before);
  const query = q.toString();
  return query ? `/activity?${query}` : '/activity';
}

/** Previous and next pages: `hasMore` speaks for the direction paged; the other side is where one came from. */
export function pagesOf(f: ActivityFilters, page: ActivityPage['pagination']) {
  const { firstId, lastId, hasMore } = page;
  if (!firstId || !lastId) return { previous: f.after || f.before ? hrefOf(f) : null, next: null };
  return {
    previous: f.before ? (hasMore ? hrefOf(f, { before: firstId }) : null) : f.after ? hrefOf(f, { before: firstId }) : null,
    next: f.before ? hrefOf(f, { after: lastId }) : hasMore ? hrefOf(f, { after: lastId }) : null,
  };
}

/** An entry's details in one line each: `key: value`, long values cut. */
export function detailsOf(data: Record<string, unknown>): { key: string; value: string }[] {
  return Object.entries(data).slice(0, 8).map(([key, raw]) => {
    const value = typeof raw === 'string' ? raw : JSON.stringify(raw) ?? String(raw);
    return { key, value: value.length > 120 ? `${value.slice(0, 119)}…` : value };
  });
}

const actorOf = (entry: Entry): Child => entry.actor
  ? (
    <>
      <span class="wrap">{entry.actor.name || entry.actor.email}</span>
      {entry.actor.name ? <span class="muted small wrap"> {entry.actor.email}</span> : null}
      <br />
      <span class="muted small">by {entry.actor.kind.replace(/_/g, ' ')}</span>
    </>
  )
  : <span class="muted">the service</span>;

function EntryList(props: { c: DashContext; filters: ActivityFilters; page: ActivityPage }) {
  const { c, filters, page } = props;
  const { timezone } = c.var.frame;
  const pages = pagesOf(filters, page.pagination);
  const swap = (href: string) => hx(c.var.nonce, { 'hx-get': href, 'hx-target': '#activity-list', 'hx-swap': 'outerHTML', 'hx-push-url': 'true' });
  const filtered = Boolean(filters.project || filters.person || filters.actions.length);
  return (
    <div id="activity-list" class="activity-list">
      {page.entries.length ? (
        <>
          <Table
            caption={`Activity, ${filters.sort === 'action' ? 'by action' : 'by time'}, ${filters.dir === 'desc' ? (filters.sort === 'action' ? 'Z to A' : 'newest first') : (filters.sort === 'action' ? 'A to Z' : 'oldest first')}`}
            rows={page.entries}
            columns={[
              { label: 'When', cell: (e) => <Time iso={e.createdAt} timezone={timezone} /> },
              { label: 'Action', cell: (e) => <code>{e.action}</code> },
              { label: 'Who', cell: actorOf },
              { label: 'Project', cell: (e) => (e.project ? <span class="wrap">{e.project.name}</span> : e.projectId ? <span class="muted">a deleted project</span> : <Tag value="organization" />) },
              {
                label: 'Details',
                cell: (e) => {
                  const details = detailsOf(e.data);
                  return details.length ? (
                    <dl class="details">
                      {details.map((d) => (
                        <>
                          <dt>{d.key}</dt>
                          <dd class="wrap">{d.value}</dd>
                        </>
                      ))}
                    </dl>
                  ) : <span class="muted">none</span>;
                },
              },
              { label: 'Trace id', cell: (e) => (e.traceId ? <code class="wrap">{e.traceId}</code> : <span class="muted">not known</span>) },
            ]}
          />
          <Pager
            label="Pages of activity" previous={pages.previous} next={pages.next} linked={swap}
            shown={`${formatCount(page.entries.length)} shown of ${formatCount(page.pagination.total)} matching ${page.pagination.total === 1 ? 'entry' : 'entries'}`}
          />
        </>
      ) : (
        <Empty>
          {filtered || filters.after || filters.before ? (
            <p aria-live="polite">No entry matches these filters. <a href="/activity">Show all activity</a>, or choose other filters above.</p>
          ) : (
            <p aria-live="polite">Nothing has been recorded yet. Entries appear here as people sign in, create projects, upload bundles or change teams.</p>
          )}
          {pages.previous ? <p><a href={pages.previous}>Back to the first page</a></p> : null}
        </Empty>
      )}
    </div>
  );
}

function Filters(props: { c: DashContext; frame: Frame; filters: ActivityFilters; actions: string[]; members: Members['users'] | null }) {
  const { c, frame, filters, actions, members } = props;
  return (
    <form method="get" action="/activity" class="toolbar activity-filters" aria-label="Filter the activity"
      {...hx(c.var.nonce, { 'hx-get': '/activity', 'hx-target': '#activity-list', 'hx-swap': 'outerHTML', 'hx-push-url': 'true' })}>
      <div class="field">
        <label class="label" for="activity-project">Project</label>
        <select class="select" id="activity-project" name="project">
          <option value="" selected={!filters.project}>All projects and the organization</option>
          <option value="none" selected={filters.project === 'none'}>Organization only</option>
          {frame.projects.map((p) => <option value={p.id} selected={filters.project === p.id}>{p.name}</option>)}
        </select>
      </div>
      {members ? (
        <div class="field">
          <label class="label" for="activity-person">Person</label>
          <select class="select" id="activity-person" name="person">
            <option value="" selected={!filters.person}>Anyone</option>
            {members.map((m) => <option value={m.id} selected={filters.person === m.id}>{m.name ? `${m.name} (${m.email})` : m.email}</option>)}
          </select>
        </div>
      ) : null}
      <div class="field">
        <label class="label" for="activity-action">Actions</label>
        <select class="select activity-actions" id="activity-action" name="action" multiple size={4} aria-describedby="activity-action-hint">
          {actions.map((a) => <option value={a} selected={filters.actions.includes(a)}>{a}</option>)}
        </select>
        <p class="hint" id="activity-action-hint">None chosen: every action.</p>
      </div>
      <div class="field">
        <label class="label" for="activity-sort">Sort by</label>
        <select class="select" id="activity-sort" name="sort">
          <option value="createdAt" selected={filters.sort === 'createdAt'}>Time</option>
          <option value="action" selected={filters.sort === 'action'}>Action, then time</option>
        </select>
      </div>
      <div class="field">
        <label class="label" for="activity-dir">Order</label>
        <select class="select" id="activity-dir" name="dir">
          <option value="desc" selected={filters.dir === 'desc'}>Descending (newest first)</option>
          <option value="asc" selected={filters.dir === 'asc'}>Ascending (oldest first)</option>
        </select>
      </div>
      <button type="submit" class="btn btn-primary btn-small">Show</button>
      {filters.project || filters.person || filters.actions.length || filters.sort !== 'createdAt' || filters.dir !== 'desc' ? <a href="/activity">Clear filters</a> : null}
    </form>
  );
}

export const activityRoutes = new Hono<DashEnv>()
  .get('/activity', async (c) => {
    const { frame } = c.var;
    const filters = filtersOf(new URL(c.req.url));
    const calls = api(c);
    const org = `/api/v1/org/${frame.orgId}`;
    if (wantsFragment(c)) {
      const page = await calls.get<ActivityPage>(`${org}/activity?${apiQuery(filters)}`);
      return fragment(c, <EntryList c={c} filters={filters} page={page} />);
    }
    const [page, members] = await Promise.all([calls.get<ActivityPage>(`${org}/activity?${apiQuery(filters)}`), calls.try<Members>(`${org}/user`)]);
    return shellPage(c, { title: 'Activity', area: 'Activity' }, (
      <>
        <PageTitle title="Activity">
          <p class="muted">Who did what in {frame.orgName}: the organization's own entries and those of the projects you reach. Quote an entry's trace id when you ask for help with it.</p>
        </PageTitle>
        <Filters c={c} frame={frame} filters={filters} actions={page.availableActions} members={members.status === 200 ? members.body.users : null} />
        <EntryList c={c} filters={filters} page={page} />
      </>
    ));
  });
