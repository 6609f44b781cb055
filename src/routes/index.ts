// Every family router, mounted at the root by app.ts. Each family owns its full paths.
import { activityRouter } from './activity';
import { authRouter } from './auth';
import { bundlesRouter } from './bundles';
import { credentialsRouter } from './credentials';
import { dataHealthRouter } from './data-health';
import { portfoliosRouter } from './portfolios';
import { subjectsRouter } from './subjects';
import { decisionsRouter } from './decisions';
import { vexRouter } from './vex';
import { notificationsRouter } from './notifications';
import { jobsRouter } from './jobs';
import { surveysRouter } from './surveys';
import { reportsRouter } from './reports';
import { devRouter } from './dev';
import { storeFiguresRouter } from './dev/store-figures';
import { metaRouter } from './meta';
import { organizationsRouter } from './organizations';
import { permissionsRouter } from './permissions';
import { projectsRouter } from './projects';
import { rolesRouter } from './roles';
import { teamsRouter } from './teams';
import { usersRouter } from './users';

export const routers = [
  metaRouter,
  authRouter,
  devRouter,
  storeFiguresRouter,
  organizationsRouter,
  projectsRouter,
  usersRouter,
  teamsRouter,
  rolesRouter,
  permissionsRouter,
  credentialsRouter,
  activityRouter,
  jobsRouter,
  surveysRouter,
  reportsRouter,
  bundlesRouter,
  dataHealthRouter,
  portfoliosRouter,
  subjectsRouter,
  decisionsRouter,
  vexRouter,
  notificationsRouter,
];
