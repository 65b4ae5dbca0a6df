// Shared parts of the API benchmarks: the load generator (autocannon in its own process) and the seeding of a
// federation through the REST API (6 organizations, one collaboration, a node each, 200 tasks).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const autocannonBin = fileURLToPath(new URL('../../node_modules/autocannon/autocannon.js', import.meta.url));

/** A numeric `--name value` option of the command line. */
export const numberOption = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

/** Runs autocannon against `url`; resolves with req/s, p50/p99 latency (ms), the failures and the requests sent. */
export function cannon(url, { headers = {}, duration, connections }) {
  return new Promise((resolve, reject) => {
    const args = [autocannonBin, '-c', String(connections), '-d', String(duration), '-j'];
    for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
    args.push(url);
    const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}`));
      const r = JSON.parse(out);
      resolve({
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors,
        total: r.requests.total,
      });
    });
  });
}

/** A JSON caller of the API at `base` (e.g. http://127.0.0.1:5000/api) that throws on any refusal. */
export const apiCaller = (base) => async (method, path, body, token) => {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await r.json();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
};

/**
 * Logs in as root and seeds 5 organizations plus root's, a collaboration of all six with a node each, and 200
 * tasks for all of them. Returns the token and the ids the benchmarks read.
 */
export async function seedFederation(call, rootPassword) {
  const { access_token: token } = await call('POST', '/token/user', {
    username: 'root',
    password: rootPassword,
  });
  const me = await call('GET', '/user?username=root', undefined, token);
  const orgs = [];
  for (let i = 0; i < 5; i++)
    orgs.push((await call('POST', '/organization', { name: `bench-org-${i}`, country: 'NL' }, token)).id);
  orgs.push((me.data ?? me)[0].organization.id);
  const collab = await call(
    'POST',
    '/collaboration',
    { name: 'bench-collab', organization_ids: orgs, encrypted: false },
    token,
  );
  for (const org of orgs)
    await call('POST', '/node', { collaboration_id: collab.id, organization_id: org }, token);
  console.log('seeding 200 tasks…');
  for (let i = 0; i < 200; i++) {
    const organizations = orgs.map((id) => ({ id, input: 'aW5wdXQ=' }));
    await call(
      'POST',
      '/task',
      { collaboration_id: collab.id, organizations, name: `t${i}`, image: 'bench/image' },
      token,
    );
  }
  return { token, orgs, collaborationId: collab.id };
}
