/**
 * `vserver status` as a server administrator reads it: a stopped server with the command that starts it, a running
 * one with where its web UI, API and API documentation are. The Docker engine is a stand-in answering the containers
 * `vserver start` would have made (with their labels); the configurations are real files.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';

import { tempXdg } from '@federa/testing';
import { writeEnvironment } from '../config/store.js';
import type { DockerEngine } from '../docker/engine.js';
import { typeDirs } from '../paths.js';
import { serverStatus } from './commands.js';
import { LABELS, TYPE_LABEL, serverContainerName } from './naming.js';

const dirs = tempXdg();
afterAll(() => dirs.cleanup());

const config = (name: string, values: Record<string, unknown>): void => {
  const dir = typeDirs('server', 'user', dirs.env).config;
  mkdirSync(dir, { recursive: true });
  writeEnvironment(`${dir}/${name}.yaml`, 'prod', {
    ip: '0.0.0.0',
    port: 7711,
    api_path: '/api',
    uri: 'sqlite:///default.sqlite',
    jwt_secret_key: 'a-secret-of-enough-length',
    ...values,
  });
};

it('says which servers run and where the running one is reached, its web UI first', async () => {
  config('alpha', {});
  config('beta', { ui: { path: '/ui/' } });
  config('gamma', {});
  const labels = (name: string, port: string, ip = '0.0.0.0') => ({
    name: serverContainerName(name, 'user'),
    running: true,
    image: 'federa/server:local',
    labels: {
      [TYPE_LABEL]: 'server',
      [LABELS.name]: name,
      [LABELS.system]: 'False',
      [LABELS.environment]: 'prod',
      [LABELS.hostIp]: ip,
      [LABELS.hostPort]: port,
      [LABELS.apiPath]: '/api',
    },
  });
  const engine = {
    runningWithLabel: async () => [labels('alpha', '7711'), labels('beta', '7712', '192.0.2.7')],
  } as unknown as DockerEngine;
  expect(await serverStatus(dirs.env, engine)).toEqual([
    `alpha (user): running in container ${serverContainerName('alpha', 'user')}; web UI at http://127.0.0.1:7711/, API at http://127.0.0.1:7711/api, docs at http://127.0.0.1:7711/apidocs`,
    `beta (user): running in container ${serverContainerName('beta', 'user')}; web UI at http://192.0.2.7:7712/ui/, API at http://192.0.2.7:7712/api, docs at http://192.0.2.7:7712/apidocs`,
    'gamma (user): not running; start it with vserver start -n gamma --user',
  ]);
});
