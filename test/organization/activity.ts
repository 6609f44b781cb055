import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Permission } from '../../src/auth/permissions';
import { ACTIVITY_ACTIONS, activityInsert, type ActivityAction } from '../../src/control/activity';
import { controlDb } from '../../src/control/db';
import { orgMembers, roles, teamMembers, teamProjects, teamRoles, teams } from '../../src/control/schema';
import { ensureUser } from '../../src/control/tenancy';
import { nowIso } from '../../src/lib/ids';
import { api, expectError, json, newTenant, signIn, uniqueEmail } from '../helpers';
import { addPerson, apiToken, roleMatrix, uploadPass, type MatrixRole, type Tenant, addProject } from '../people';

const activityPath = (orgId: string, query = '') => `/api/v1/org/${orgId}/activity${query ? `?${query}` : ''}`;

async function read(orgId: string, token: string, query = '') {
  const res = await api(activityPath(orgId, query), { token });
  expect(res.status).toBe(200);
  return json(res);
}

/** A person whose only team reaches just `projectIds`, with a role holding `permissions`; signed in. */
async function addReachLimitedPerson(tenant: Tenant, projectIds: string[], permissions: Permission[]) {
  const db = controlDb(env.DB);
  const user = await ensureUser(db, uniqueEmail('limited'));
  const now = nowIso();
  const roleId = crypto.randomUUID();
  const teamId = crypto.randomUUID();
  await db.batch([
    db.insert(orgMembers).values({ orgId: tenant.orgId, userId: user.id, joinedAt: now }),
    db.insert(roles).values({ id: roleId, orgId: tenant.orgId, name: `Role ${roleId.slice(0, 8)}`, permissions, createdAt: now }),
    db.insert(teams).values({ id: teamId, orgId: tenant.orgId, name: `Team ${teamId.slice(0, 8)}`, allProjects: false, createdAt: now }),
    db.insert(teamRoles).values({ teamId, roleId }),
    db.insert(teamMembers).values({ teamId, userId: user.id, addedAt: now }),
    ...projectIds.map((projectId) => db.insert(teamProjects).values({ teamId, projectId })),
  ]);
  const session = await signIn(user.email);
  return { ...session, token: session.jwt, teamId };
}

interface Seed {
  projectId?: string | null;
  actorId?: string | null;
  action?: ActivityAction;
}

/** Writes entries straight into the log, as the operations that record them do. */
async function seed(orgId: string, entries: Seed[]): Promise<void> {
  const db = controlDb(env.DB);
  const statements = entries.map((entry) =>
    activityInsert(db, {
      orgId,
      projectId: entry.projectId ?? null,
      actor: entry.actorId ? { userId: entry.actorId, kind: 'session' } : null,
      action: entry.action ?? 'project.updated',
      data: { seeded: true },
    }),
  );
  for (let i = 0; i < statements.length; i += 50) {
    const chunk = statements.slice(i, i + 50);
    await db.batch(chunk as [(typeof chunk)[0], ...typeof chunk]);
  }
}

interface Row {
  id: string;
  action: string;
  created_at: string;
  project_id: string | null;
}

/** Every entry of the organization passing `visible`, in the order the API must give. */
async function expectedOrder(orgId: string, visible: (row: Row) => boolean, sortBy: 'createdAt' | 'action', sortDir: 'asc' | 'desc'): Promise<string[]> {
  const { results } = await env.DB.prepare('SELECT id, action, created_at, project_id FROM activity WHERE org_id = ?').bind(orgId).all<Row>();
  const key = (row: Row) => (sortBy === 'action' ? [row.action, row.created_at, row.id] : [row.created_at, row.id]);
  const compare = (a: Row, b: Row) => {
    const [ka, kb] = [key(a), key(b)];
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
    return 0;
  };
  const sorted = results.filter(visible).sort(compare);
  return (sortDir === 'desc' ? sorted.reverse() : sorted).map((row) => row.id);
}

const ids = (page: { entries: { id: string }[] }) => page.entries.map((entry) => entry.id);

describe('GET O/activity: the answer (spec 4.14, part 2)', () => {
  it('answers entries, availableActions (every action name) and pagination', async () => {
    const tenant = await newTenant();
    const page = await read(tenant.orgId, tenant.token);
    expect(Object.keys(page).sort()).toEqual(['availableActions', 'entries', 'pagination']);
    expect(page.availableActions).toEqual([...ACTIVITY_ACTIONS]);
    // Sign-up records the new organization, then the sign-in.
    expect(page.entries.map((entry: { action: string }) => entry.action)).toEqual(['user.signed_up', 'organization.created']);
    expect(page.pagination).toEqual({ firstId: page.entries[0].id, lastId: page.entries[1].id, hasMore: false, total: 2 });
  });

  it('gives each entry id, action, actor, projectId, project, createdAt, data and traceId', async () => {
    const tenant = await newTenant();
    const res = await api(`/api/v1/project/${tenant.projectId}/credential/spice-pass`, { method: 'POST', token: tenant.token });
    const pass = await json(res);
    const [entry] = (await read(tenant.orgId, tenant.token, 'action=credential.created')).entries;
    const project = await env.DB.prepare('SELECT name FROM projects WHERE id = ?').bind(tenant.projectId).first<{ name: string }>();
    expect(entry).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/),
      action: 'credential.created',
      actor: { id: tenant.user.id, email: tenant.user.email, name: tenant.user.name, kind: 'session' },
      projectId: tenant.projectId,
      project: { id: tenant.projectId, name: project!.name },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: { jti: pass.jti, kind: 'upload_pass', expiresAt: pass.expiresAt },
      traceId: res.headers.get('x-request-id'),
    });
  });

  it('gives a null actor for the service, null project for organization-level entries, and no traceId when unknown', async () => {
    const tenant = await newTenant();
    await seed(tenant.orgId, [{ action: 'organization.updated' }]);
    const [entry] = (await read(tenant.orgId, tenant.token, 'action=organization.updated')).entries;
    expect(entry).toMatchObject({ actor: null, projectId: null, project: null, data: { seeded: true } });
    expect(entry).not.toHaveProperty('traceId');
  });

  it('is newest first by default and holds 1000 entries a page unless limit says otherwise', async () => {
    const tenant = await newTenant();
    await seed(tenant.orgId, Array.from({ length: 11 }, () => ({ projectId: tenant.projectId })));
    const page = await read(tenant.orgId, tenant.token);
    expect(ids(page)).toEqual(await expectedOrder(tenant.orgId, () => true, 'createdAt', 'desc'));
    expect(page.entries).toHaveLength(13);
    const limited = await read(tenant.orgId, tenant.token, 'limit=5');
    expect(limited.entries).toHaveLength(5);
    expect(limited.pagination).toMatchObject({ hasMore: true, total: 13 });
  });
});

describe('who sees which entries (spec 4.14 rule 1)', () => {
  it('a session sees organization-level entries and those of the projects it reaches; others are neither listed nor counted', async () => {
    const tenant = await newTenant();
    const hidden = await addProject(tenant);
    const reader = await addReachLimitedPerson(tenant, [tenant.projectId], ['org:view_activity_log', 'project:view']);
    await seed(tenant.orgId, [{ projectId: tenant.projectId }, { projectId: null }, { projectId: hidden }, { projectId: hidden }]);
    const page = await read(tenant.orgId, reader.token, 'limit=10000');
    const expected = await expectedOrder(tenant.orgId, (row) => row.project_id !== hidden, 'createdAt', 'desc');
    expect(ids(page)).toEqual(expected);
    expect(page.pagination.total).toBe(expected.length);
    expect(page.entries.some((entry: { projectId: string | null }) => entry.projectId === hidden)).toBe(false);
    // The owner reaches every project and sees them all.
    expect((await read(tenant.orgId, tenant.token, 'limit=10000')).pagination.total).toBe(expected.length + 2);
  });

  it('a session stops seeing a project\'s entries once it no longer reaches it', async () => {
    const tenant = await newTenant();
    const other = await addProject(tenant);
    const reader = await addReachLimitedPerson(tenant, [tenant.projectId, other], ['org:view_activity_log']);
    await seed(tenant.orgId, [{ projectId: other }]);
    expect((await read(tenant.orgId, reader.token, `projectId=${other}`)).pagination.total).toBe(1);
    // Through the API, as a team manager would: the change is seen on the reader's very next request.
    const replaced = await api(`/api/v1/org/${tenant.orgId}/team/${reader.teamId}/project`, { method: 'PUT', token: tenant.token, body: { projectIds: [tenant.projectId] } });
    expect(replaced.status).toBe(200);
    await expectError(await api(activityPath(tenant.orgId, `projectId=${other}`), { token: reader.token }), 404, 'not_found');
    expect((await read(tenant.orgId, reader.token)).entries.some((entry: { projectId: string | null }) => entry.projectId === other)).toBe(false);
  });

  it('an API token sees only its own project\'s entries, not organization-level ones', async () => {
    const tenant = await newTenant();
    const other = await addProject(tenant);
    await seed(tenant.orgId, [{ projectId: tenant.projectId }, { projectId: tenant.projectId }, { projectId: null }, { projectId: other }]);
    const token = await apiToken(tenant, ['org:view_activity_log']);
    const page = await read(tenant.orgId, token);
    const expected = await expectedOrder(tenant.orgId, (row) => row.project_id === tenant.projectId, 'createdAt', 'desc');
    expect(ids(page)).toEqual(expected);
    expect(page.pagination.total).toBe(expected.length);
    expect((await read(tenant.orgId, token, 'projectId=none')).pagination.total).toBe(0);
    await expectError(await api(activityPath(tenant.orgId, `projectId=${other}`), { token }), 404, 'not_found');
  });
});

describe('filters (spec 4.14 query)', () => {
  it('projectId keeps one project\'s entries; none keeps organization-level entries only', async () => {
    const tenant = await newTenant();
    const other = await addProject(tenant);
    await seed(tenant.orgId, [{ projectId: tenant.projectId }, { projectId: other }, { projectId: other }, { projectId: null }]);
    const ofOther = await read(tenant.orgId, tenant.token, `projectId=${other}`);
    expect(ids(ofOther)).toEqual(await expectedOrder(tenant.orgId, (row) => row.project_id === other, 'createdAt', 'desc'));
    expect(ofOther.pagination.total).toBe(2);
    const orgLevel = await read(tenant.orgId, tenant.token, 'projectId=none');
    expect(ids(orgLevel)).toEqual(await expectedOrder(tenant.orgId, (row) => row.project_id === null, 'createdAt', 'desc'));
  });

  it('userId keeps the entries a person caused, former members included', async () => {
    const tenant = await newTenant();
    const colleague = await addPerson(tenant, 'Member');
    await seed(tenant.orgId, [{ actorId: colleague.user.id }, { actorId: colleague.user.id }, { actorId: tenant.user.id }]);
    await env.DB.prepare('UPDATE org_members SET removed_at = ? WHERE org_id = ? AND user_id = ?').bind(nowIso(), tenant.orgId, colleague.user.id).run();
    const page = await read(tenant.orgId, tenant.token, `userId=${colleague.user.id}`);
    // The colleague's own sign-in is recorded too.
    expect(page.entries.every((entry: { actor: { id: string } }) => entry.actor.id === colleague.user.id)).toBe(true);
    expect(page.pagination.total).toBe(3);
  });

  it('action keeps one action; actions takes repeated parameters and comma-separated names; both merge', async () => {
    const tenant = await newTenant();
    await seed(tenant.orgId, [{ action: 'team.created' }, { action: 'team.deleted' }, { action: 'role.created' }, { action: 'role.created' }]);
    const total = async (query: string) => (await read(tenant.orgId, tenant.token, query)).pagination.total;
    expect(await total('action=role.created')).toBe(2);
    expect(await total('actions=team.created&actions=team.deleted')).toBe(2);
    expect(await total('actions=team.created,role.created')).toBe(3);
    expect(await total('actions=team.created,team.deleted&actions=role.created')).toBe(4);
    expect(await total('action=team.created&actions=team.deleted')).toBe(2);
    const page = await read(tenant.orgId, tenant.token, 'actions=team.created&actions=team.deleted');
    expect(page.entries.map((entry: { action: string }) => entry.action).sort()).toEqual(['team.created', 'team.deleted']);
  });

  it('filters combine', async () => {
    const tenant = await newTenant();
    await seed(tenant.orgId, [
      { projectId: tenant.projectId, actorId: tenant.user.id, action: 'team.created' },
      { projectId: null, actorId: tenant.user.id, action: 'team.created' },
      { projectId: tenant.projectId, actorId: null, action: 'team.created' },
      { projectId: tenant.projectId, actorId: tenant.user.id, action: 'team.deleted' },
    ]);
    const page = await read(tenant.orgId, tenant.token, `projectId=${tenant.projectId}&userId=${tenant.user.id}&action=team.created`);
    expect(page.pagination.total).toBe(1);
  });
});

describe('paging (spec 4.14 rule 2, part 8)', () => {
  const LIMIT = 7;

  for (const sortBy of ['createdAt', 'action'] as const) {
    for (const sortDir of ['desc', 'asc'] as const) {
      it(`pages forwards with after and backwards with before, sortBy=${sortBy} sortDir=${sortDir}`, async () => {
        const tenant = await newTenant();
        const mix: ActivityAction[] = ['team.created', 'role.updated', 'project.updated', 'team.member.added'];
        await seed(tenant.orgId, Array.from({ length: 23 }, (_, i) => ({ projectId: i % 3 ? tenant.projectId : null, action: mix[i % mix.length] })));
        const expected = await expectedOrder(tenant.orgId, () => true, sortBy, sortDir);
        expect(expected.length).toBe(25);
        const base = `sortBy=${sortBy}&sortDir=${sortDir}&limit=${LIMIT}`;

        const forward: string[] = [];
        const pages: { firstId: string; lastId: string }[] = [];
        let page = await read(tenant.orgId, tenant.token, base);
        for (;;) {
          expect(ids(page)).toEqual(expected.slice(forward.length, forward.length + LIMIT));
          expect(page.pagination.total).toBe(25);
          forward.push(...ids(page));
          pages.push(page.pagination);
          expect(page.pagination.hasMore).toBe(forward.length < 25);
          if (!page.pagination.hasMore) break;
          page = await read(tenant.orgId, tenant.token, `${base}&after=${page.pagination.lastId}`);
        }
        expect(forward).toEqual(expected);
        expect(pages).toHaveLength(4);

        // From the last page back to the first: each page is the one just before the cursor, in the same order.
        let end = expected.length - ids(page).length;
        let cursor = page.pagination.firstId;
        const backward: string[] = [...ids(page)];
        for (;;) {
          const before = await read(tenant.orgId, tenant.token, `${base}&before=${cursor}`);
          expect(ids(before)).toEqual(expected.slice(Math.max(0, end - LIMIT), end));
          expect(before.pagination.total).toBe(25);
          end -= ids(before).length;
          backward.unshift(...ids(before));
          expect(before.pagination.hasMore).toBe(end > 0);
          if (!before.pagination.hasMore) break;
          cursor = before.pagination.firstId;
        }
        expect(backward).toEqual(expected);
      });
    }
  }

  it('sortBy=action orders by action name, then time', async () => {
    const tenant = await newTenant();
    await seed(tenant.orgId, [{ action: 'team.created' }, { action: 'role.created' }, { action: 'team.created' }]);
    const actions = (await read(tenant.orgId, tenant.token, 'sortBy=action&sortDir=asc')).entries.map((entry: { action: string }) => entry.action);
    expect(actions).toEqual([...actions].sort());
  });

  it('answers an empty page with null ids past the end', async () => {
    const tenant = await newTenant();
    const page = await read(tenant.orgId, tenant.token);
    const past = await read(tenant.orgId, tenant.token, `after=${page.pagination.lastId}`);
    expect(past).toMatchObject({ entries: [], pagination: { firstId: null, lastId: null, hasMore: false, total: 2 } });
  });

  it('accepts a cursor that is visible but outside the current filters', async () => {
    const tenant = await newTenant();
    await seed(tenant.orgId, [{ action: 'team.created' }, { action: 'role.created' }, { action: 'team.created' }]);
    const all = await read(tenant.orgId, tenant.token, 'sortDir=asc');
    const roleEntry = all.entries.find((entry: { action: string }) => entry.action === 'role.created');
    const page = await read(tenant.orgId, tenant.token, `sortDir=asc&action=team.created&after=${roleEntry.id}`);
    const expected = ids(all).slice(ids(all).indexOf(roleEntry.id) + 1).filter((id) => all.entries.find((e: { id: string }) => e.id === id).action === 'team.created');
    expect(ids(page)).toEqual(expected);
  });
});

describe('invalid requests (spec 4.14 rule 3)', () => {
  it('answers 400 invalid_parameter naming an invalid filter, sort or paging value', async () => {
    const tenant = await newTenant();
    const cases: [string, string][] = [
      ['projectId=abc', 'projectId'],
      ['projectId=None', 'projectId'],
      ['userId=42', 'userId'],
      ['action=team.exploded', 'action'],
      ['actions=team.created,team.exploded', 'actions'],
      ['actions=team.created&actions=nope', 'actions'],
      ['actions=', 'actions'],
      ['limit=0', 'limit'],
      ['limit=10001', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=1.5', 'limit'],
      ['sortBy=name', 'sortBy'],
      ['sortDir=up', 'sortDir'],
      ['after=xyz', 'after'],
      ['before=xyz', 'before'],
    ];
    for (const [query, parameter] of cases) {
      await expectError(await api(activityPath(tenant.orgId, query), { token: tenant.token }), 400, 'invalid_parameter', { parameter });
    }
  });

  it('answers 400 invalid_parameter when both cursors are given', async () => {
    const tenant = await newTenant();
    const { pagination } = await read(tenant.orgId, tenant.token);
    await expectError(await api(activityPath(tenant.orgId, `after=${pagination.lastId}&before=${pagination.firstId}`), { token: tenant.token }), 400, 'invalid_parameter', { parameter: 'before' });
  });

  it('answers 400 invalid_parameter when a cursor names no entry the caller can see', async () => {
    const tenant = await newTenant();
    const hidden = await addProject(tenant);
    const reader = await addReachLimitedPerson(tenant, [tenant.projectId], ['org:view_activity_log']);
    await seed(tenant.orgId, [{ projectId: hidden }, { projectId: null }]);
    const hiddenEntry = (await read(tenant.orgId, tenant.token, `projectId=${hidden}`)).entries[0].id;
    const orgEntry = (await read(tenant.orgId, tenant.token, 'projectId=none')).entries[0].id;
    await expectError(await api(activityPath(tenant.orgId, `after=${crypto.randomUUID()}`), { token: tenant.token }), 400, 'invalid_parameter', { parameter: 'after' });
    await expectError(await api(activityPath(tenant.orgId, `before=${hiddenEntry}`), { token: reader.token }), 400, 'invalid_parameter', { parameter: 'before' });
    const token = await apiToken(tenant, ['org:view_activity_log']);
    await expectError(await api(activityPath(tenant.orgId, `after=${orgEntry}`), { token }), 400, 'invalid_parameter', { parameter: 'after' });
  });

  it('answers 404 when projectId is not a project of the organization', async () => {
    const tenant = await newTenant();
    const stranger = await newTenant();
    await expectError(await api(activityPath(tenant.orgId, `projectId=${crypto.randomUUID()}`), { token: tenant.token }), 404, 'not_found');
    await expectError(await api(activityPath(tenant.orgId, `projectId=${stranger.projectId}`), { token: tenant.token }), 404, 'not_found');
  });

  it('answers 404 when userId is not a person of the organization', async () => {
    const tenant = await newTenant();
    const stranger = await newTenant();
    await expectError(await api(activityPath(tenant.orgId, `userId=${crypto.randomUUID()}`), { token: tenant.token }), 404, 'not_found');
    await expectError(await api(activityPath(tenant.orgId, `userId=${stranger.user.id}`), { token: tenant.token }), 404, 'not_found');
  });

  it('answers 400 invalid_parameter naming orgId for a malformed organization id', async () => {
    const tenant = await newTenant();
    await expectError(await api('/api/v1/org/not-a-uuid/activity', { token: tenant.token }), 400, 'invalid_parameter', { parameter: 'orgId' });
  });
});

describe('who may read the log (spec 4.14, part 5)', () => {
  it('admin 200; member, viewer and custom 403 permission_denied; an API token without the permission 403; a pass 401', async () => {
    const { tenant, tokens } = await roleMatrix();
    const expected: Record<MatrixRole, [number, string | null]> = {
      admin: [200, null],
      member: [403, 'permission_denied'],
      viewer: [403, 'permission_denied'],
      custom: [403, 'permission_denied'],
      apiToken: [403, 'permission_denied'],
      uploadPass: [401, 'unauthorized'],
    };
    for (const [role, [status, code]] of Object.entries(expected) as [MatrixRole, [number, string | null]][]) {
      const res = await api(activityPath(tenant.orgId), { token: tokens[role] });
      if (code === null) expect({ role, status: res.status }).toEqual({ role, status });
      else await expectError(res, status, code, code === 'permission_denied' ? { permission: 'org:view_activity_log' } : {});
    }
  });

  it('an API token created with org:view_activity_log reads its project\'s entries', async () => {
    const tenant = await newTenant();
    const res = await api(`/api/v1/project/${tenant.projectId}/credential/api-token`, { token: tenant.token, body: { permissions: ['org:view_activity_log'] } });
    const token = (await json(res)).bearer_token;
    const page = await read(tenant.orgId, token);
    expect(page.entries.length).toBeGreaterThan(0);
    expect(page.entries.every((entry: { projectId: string }) => entry.projectId === tenant.projectId)).toBe(true);
  });

  it('answers 401 unauthorized to an upload pass and without a credential', async () => {
    const tenant = await newTenant();
    await expectError(await api(activityPath(tenant.orgId), { token: await uploadPass(tenant) }), 401, 'unauthorized');
    await expectError(await api(activityPath(tenant.orgId)), 401, 'unauthorized');
  });
});

describe('tenants stay apart (spec part 5 rule 4)', () => {
  it('answers 403 forbidden to another organization\'s admin', async () => {
    const a = await newTenant();
    const b = await newTenant();
    await expectError(await api(activityPath(a.orgId), { token: b.token }), 403, 'forbidden');
    await expectError(await api(activityPath(a.orgId), { token: await apiToken(b, ['org:view_activity_log']) }), 403, 'forbidden');
  });

  it('never lets another organization\'s entries, projects or people through its own path', async () => {
    const a = await newTenant();
    const b = await newTenant();
    const entryOfA = (await read(a.orgId, a.token)).entries[0].id;
    await expectError(await api(activityPath(b.orgId, `after=${entryOfA}`), { token: b.token }), 400, 'invalid_parameter', { parameter: 'after' });
    await expectError(await api(activityPath(b.orgId, `projectId=${a.projectId}`), { token: b.token }), 404, 'not_found');
    await expectError(await api(activityPath(b.orgId, `userId=${a.user.id}`), { token: b.token }), 404, 'not_found');
    expect(ids(await read(b.orgId, b.token, 'limit=10000'))).not.toContain(entryOfA);
  });
});

describe('the OpenAPI document', () => {
  it('describes the activity operation with its query parameters and answer', async () => {
    const doc = await json(await api('/api/v1/openapi.json'));
    const operation = doc.paths['/api/v1/org/{orgId}/activity'].get;
    expect(operation.parameters.map((p: { name: string }) => p.name).sort()).toEqual(
      ['action', 'actions', 'after', 'before', 'limit', 'orgId', 'projectId', 'sortBy', 'sortDir', 'userId'],
    );
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404']));
    expect(doc.components.schemas).toHaveProperty('ActivityPage');
  });
});
