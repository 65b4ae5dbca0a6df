#!/usr/bin/env node
// The federation scripts/probe-v4-client.py runs a vantage6 4.x user's script against: a Federa server (throwaway
// database, root user), a plain and an encrypted collaboration of two organizations each, a Federa node per
// organization running algorithms in Docker, and the 4.x average algorithm image (algorithms/average-v4, built by
// scripts/build-algorithms.sh). It writes what the probe needs (address, credentials, ids, the key of the root
// user's organization in the encrypted collaboration) to a JSON file, then keeps running until Ctrl-C or SIGTERM.
//   node scripts/probe-v4-federation.mjs [--port 5070] [--out .data/probe-v4/federation.json] [--prefix probe-v4]
// --prefix names the nodes (and so their Docker networks and volumes), which are removed when it stops.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ROOT_PASSWORD,
  createFederation,
  removeNodeObjects,
  startE2eNode,
  startE2eServer,
  until,
} from '@federa/testing';

const args = process.argv.slice(2);
const option = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : dflt;
};
const root = fileURLToPath(new URL('..', import.meta.url));
const port = Number(option('port', '5070'));
const out = resolve(option('out', join(root, '.data', 'probe-v4', 'federation.json')));
const prefix = option('prefix', 'probe-v4');
const CSVS = ['age,weight\n30,70\n40,80\n50,90\n', 'age,weight\n20,60\n25,65\n35,75\n45,85\n'];

const server = await startE2eServer('127.0.0.1', { port });
const nodes = [];
const stop = async () => {
  for (const n of nodes) await n.node.stop().catch(() => undefined);
  await server.close();
  for (const n of nodes) removeNodeObjects(n.name);
};
for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => stop().then(() => process.exit(0)));

const described = {};
for (const encrypted of [false, true]) {
  const kind = encrypted ? 'encrypted' : 'plain';
  const fed = await createFederation(server, encrypted, `${prefix}-${kind}`, CSVS);
  const started = [];
  for (const [i, org] of fed.orgs.entries())
    started.push(await startE2eNode(server, org, `${prefix}-${kind}-${i}`, encrypted));
  nodes.push(...started);
  described[kind] = {
    collaboration_id: fed.collaborationId,
    organization_ids: fed.orgs.map((o) => o.id),
    node_ids: fed.orgs.map((o) => o.nodeId),
    ...(encrypted ? { private_key: join(started[0].dataDir, 'private_key.pem') } : {}),
  };
}
const nodeIds = Object.values(described).flatMap((d) => d.node_ids);
await until(
  'nodes online',
  async () => {
    const statuses = [];
    for (const id of nodeIds) statuses.push((await server.api('GET', `/node/${id}`)).body.status);
    return statuses;
  },
  (statuses) => statuses.every((s) => s === 'online'),
  60_000,
  250,
);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  JSON.stringify(
    {
      host: 'http://127.0.0.1',
      port: server.port,
      api_path: '/v4/api',
      username: 'root',
      password: ROOT_PASSWORD,
      image: 'federa/average-v4:local',
      ...described,
    },
    null,
    2,
  ),
);
console.log(`federation at ${server.url}/v4/api, ${nodes.length} nodes online; described in ${out}`);
