// Every family router, mounted at the root by app.ts. Each family owns its full paths.
import { authRouter } from './auth';
import { devRouter } from './dev';
import { metaRouter } from './meta';

export const routers = [metaRouter, authRouter, devRouter];
