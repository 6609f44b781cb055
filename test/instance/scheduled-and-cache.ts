// The daily retention purge through the Worker's scheduled handler, and the access cache: every
// change made through the API is seen by the very next request, wherever it was cached.
import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { api, expectError, json, newTenant } from '../helpers';
import { addPerson } from '../people';

describe('scheduled retention purge', () => {
  it('removes for good a project deleted longer ago than the retention, so it can no longer be restored', async () => {
    const tenant = await newTenant();
    const second = await json(await api(`/api/v1/org/${tenant.orgId}/project`, { token: tenant.token, body: { name: 'Short-lived' } }));
    expect((await api(`/api/v1/project/${second.uuid}`, { method: 'DELETE', token: tenant.token })).status).toBe(204);

    const soon = createScheduledController({ scheduledTime: Date.now() + 10 * 86_400_000, cron: '17 3 * * *' });
    await worker.scheduled(soon, env);
    expect((await api(`/api/v1/org/${tenant.orgId}/project/deleted`, { token: tenant.token }).then(json)).projects).toHaveLength(1);

    const later = createScheduledController({ scheduledTime: Date.now() + 91 * 86_400_000, cron: '17 3 * * *' });
    await worker.scheduled(later, env);
    await expectError(await api(`/api/v1/project/${second.uuid}/restore`, { method: 'POST', token: tenant.token }), 404, 'not_found');
    const purged = await env.DB.prepare("SELECT count(*) AS n FROM activity WHERE project_id = ? AND action = 'project.purged'").bind(second.uuid).first<{ n: number }>();
    expect(purged!.n).toBe(1);
  });
});

describe('access cache: changes are seen on the very next request', () => {
  it('a role losing a permission denies it on the next request of a person who just used it', async () => {
    const tenant = await newTenant();
    const role = await json(await api(`/api/v1/org/${tenant.orgId}/role`, { token: tenant.token, body: { name: 'Auditors', permissions: ['org:view', 'org:view_activity_log'] } }));
    const team = await json(await api(`/api/v1/org/${tenant.orgId}/team`, { token: tenant.token, body: { name: 'Audit', allProjects: true, roleIds: [role.id] } }));
    const person = await addPerson(tenant, 'Viewer', 'auditor');
    expect((await api(`/api/v1/org/${tenant.orgId}/team/${team.id}/user`, { token: tenant.token, body: { userId: person.user.id } })).status).toBe(201);

    const activity = `/api/v1/org/${tenant.orgId}/activity?limit=5`;
    expect((await api(activity, { token: person.token })).status).toBe(200);
    expect((await api(activity, { token: person.token })).status).toBe(200);
    expect((await api(`/api/v1/org/${tenant.orgId}/role/${role.id}`, { method: 'PUT', token: tenant.token, body: { permissions: ['org:view'] } })).status).toBe(200);
    await expectError(await api(activity, { token: person.token }), 403, 'permission_denied', { permission: 'org:view_activity_log' });
  });

  it('a cached activity page shows the entry of a change made right after it was read', async () => {
    const tenant = await newTenant();
    const path = `/api/v1/org/${tenant.orgId}/activity?limit=1`;
    const before = await json(await api(path, { token: tenant.token }));
    expect((await api(`/api/v1/org/${tenant.orgId}`, { method: 'PUT', token: tenant.token, body: { name: 'Renamed organization' } })).status).toBe(200);
    const after = await json(await api(path, { token: tenant.token }));
    expect(after.pagination.total).toBe(before.pagination.total + 1);
    expect(after.entries[0].action).toBe('organization.updated');
  });

  it('a person\'s new name shows in the member list of their organization at once', async () => {
    const tenant = await newTenant();
    const members = `/api/v1/org/${tenant.orgId}/user`;
    await api(members, { token: tenant.token });
    expect((await api('/api/v1/user', { method: 'PUT', token: tenant.token, body: { name: 'New Name' } })).status).toBe(200);
    const listed = await json(await api(members, { token: tenant.token }));
    expect(listed.users.find((u: { id: string }) => u.id === tenant.user.id).name).toBe('New Name');
  });
});
