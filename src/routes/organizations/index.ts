import { createRouter } from '../../lib/router';

export const organizationsRouter = createRouter();
