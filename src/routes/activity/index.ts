import { createRouter } from '../../lib/router';

export const activityRouter = createRouter();
