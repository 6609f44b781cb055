import { createRouter } from '../../lib/router';

export const teamsRouter = createRouter();
