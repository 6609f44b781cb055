// Teams (spec 4.3): thin handlers over src/control/teams.ts (reads) and teams.service.ts (changes).
import type { Context } from 'hono';
import { GrantCheck } from '../../auth/grants';
import { primaryDb } from '../../middleware/read-session';
import { controlDb } from '../../control/db';
import { requireMember } from '../../control/members';
import { fullTeam, listTeamMembers, requireTeam, teamSummaries } from '../../control/teams';
import type { AppEnv } from '../../lib/context';
import { createRouter } from '../../lib/router';
import { assertPermissions } from '../../middleware/auth';
import * as routes from './teams.routes';
import * as service from './teams.service';

const caller = (c: Context<AppEnv>, orgId: string): service.Caller => ({
  orgId, actor: c.var.principal, traceId: c.var.requestId, grants: new GrantCheck(primaryDb(c), orgId, c.var.principal),
});

export const teamsRouter = createRouter()
  .openapi(routes.listTeams, async (c) => {
    const { orgId } = c.req.valid('param');
    return c.json({ teams: await teamSummaries(controlDb(c.env.DB), orgId) }, 200);
  })
  .openapi(routes.createTeam, async (c) => {
    const { orgId } = c.req.valid('param');
    return c.json(await service.createTeam(controlDb(c.env.DB), caller(c, orgId), c.req.valid('json')), 201);
  })
  .openapi(routes.getTeam, async (c) => {
    const { orgId, teamId } = c.req.valid('param');
    const db = controlDb(c.env.DB);
    return c.json(await fullTeam(db, await requireTeam(db, orgId, teamId)), 200);
  })
  .openapi(routes.updateTeam, async (c) => {
    const { orgId, teamId } = c.req.valid('param');
    const db = controlDb(c.env.DB);
    return c.json(await service.updateTeam(db, caller(c, orgId), await requireTeam(db, orgId, teamId), c.req.valid('json')), 200);
  })
  .openapi(routes.deleteTeam, async (c) => {
    const { orgId, teamId } = c.req.valid('param');
    const db = controlDb(c.env.DB);
    await service.deleteTeam(db, caller(c, orgId), await requireTeam(db, orgId, teamId));
    return c.body(null, 204);
  })
  .openapi(routes.addTeamProjects, async (c) => {
    const { orgId, teamId } = c.req.valid('param');
    const db = controlDb(c.env.DB);
    return c.json(await service.addProjects(db, caller(c, orgId), await requireTeam(db, orgId, teamId), c.req.valid('json').projectIds), 200);
  })
  .openapi(routes.replaceTeamProjects, async (c) => {
    const { orgId, teamId } = c.req.valid('param');
    const db = controlDb(c.env.DB);
    return c.json(await service.replaceProjects(db, caller(c, orgId), await requireTeam(db, orgId, teamId), c.req.valid('json').projectIds), 200);
  })
  .openapi(routes.removeTeamProject, async (c) => {
    const { orgId, teamId, projectId } = c.req.valid('param');
    await assertPermissions(c, ['org:manage_teams'], null);
    const db = controlDb(c.env.DB);
    await service.removeProject(db, caller(c, orgId), await requireTeam(db, orgId, teamId), projectId);
    return c.body(null, 204);
  })
  .openapi(routes.addTeamRoles, async (c) => {
    const { orgId, teamId } = c.req.valid('param');
    const db = controlDb(c.env.DB);
    return c.json(await service.addRoles(db, caller(c, orgId), await requireTeam(db, orgId, teamId), c.req.valid('json').roleIds), 200);
  })
  .openapi(routes.replaceTeamRoles, async (c) => {
    const { orgId, teamId } = c.req.valid('param');
    const db = controlDb(c.env.DB);
    return c.json(await service.replaceRoles(db, caller(c, orgId), await requireTeam(db, orgId, teamId), c.req.valid('json').roleIds), 200);
  })
  .openapi(routes.listTeamMembers, async (c) => {
    const { orgId, teamId } = c.req.valid('param');
    const db = controlDb(c.env.DB);
    return c.json({ members: await listTeamMembers(db, await requireTeam(db, orgId, teamId)) }, 200);
  })
  .openapi(routes.addTeamMember, async (c) => {
    const { orgId, teamId } = c.req.valid('param');
    const db = controlDb(c.env.DB);
    return c.json(await service.addMember(db, caller(c, orgId), await requireTeam(db, orgId, teamId), c.req.valid('json').userId), 201);
  })
  .openapi(routes.removeTeamMember, async (c) => {
    const { orgId, teamId, userId } = c.req.valid('param');
    const db = controlDb(c.env.DB);
    await service.removeMember(db, caller(c, orgId), await requireTeam(db, orgId, teamId), userId);
    return c.body(null, 204);
  })
  .openapi(routes.listUserTeams, async (c) => {
    const { orgId, userId } = c.req.valid('param');
    const db = controlDb(c.env.DB);
    const member = await requireMember(db, orgId, userId.toLowerCase());
    return c.json({ teams: await teamSummaries(db, orgId, { userId: member.id }) }, 200);
  });
