import { createRouter } from '../../lib/router';

export const permissionsRouter = createRouter();
