import { createRouter } from '../../lib/router';

export const credentialsRouter = createRouter();
