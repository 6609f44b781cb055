// Every family router, mounted at the root by app.ts. Each family owns its full paths.
import { metaRouter } from './meta';

export const routers = [metaRouter];
