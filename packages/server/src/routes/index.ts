import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { tokenRoutes } from './token.js';
import { recoverRoutes } from './recover.js';
import { healthRoutes } from './health.js';
import { userRoutes } from './user.js';
import { organizationRoutes } from './organization.js';
import { collaborationRoutes } from './collaboration/index.js';
import { nodeRoutes } from './node.js';
import { nodeHistoryRoutes } from './node-history.js';
import { taskRoutes } from './task/index.js';
import { resultRoutes } from './result.js';
import { resultOutputRoutes } from './result-output.js';
import { roleRoutes } from './role.js';
import { ruleRoutes } from './rule.js';
import { portRoutes } from './port.js';
import { vpnRoutes } from './vpn.js';
import { killRoutes } from './kill.js';
import { passwordRoutes } from './password.js';
import { algorithmStoreRoutes } from './algorithm-store.js';
import { auditRoutes } from './audit.js';
import { columnRoutes } from './column.js';

/** Every resource's routes, registered under `api_path`. One file per resource. */
export const registerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const routes of [
    tokenRoutes,
    recoverRoutes,
    healthRoutes,
    userRoutes,
    organizationRoutes,
    collaborationRoutes,
    nodeRoutes,
    nodeHistoryRoutes,
    taskRoutes,
    resultRoutes,
    resultOutputRoutes,
    roleRoutes,
    ruleRoutes,
    portRoutes,
    vpnRoutes,
    killRoutes,
    passwordRoutes,
    algorithmStoreRoutes,
    auditRoutes,
    columnRoutes,
  ]) {
    await app.register(routes);
  }
};
