import { createRouter } from '../../lib/router';

export const projectsRouter = createRouter();
