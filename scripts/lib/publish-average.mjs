// The main job's catalogue: the example algorithms in the server's algorithm store (the average, and the group
// means), each submitted from its author's description (algorithms/<name>/algorithm-store.json) with the image
// pinned by the local image's content digest, and approved by two reviewers of two organizations (the store's
// default policy), as any algorithm would be (docs/store.md).
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function call(base, method, path, token, body) {
  const answer = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = await answer.json();
  if (!answer.ok) throw new Error(`${method} ${path}: ${answer.status} ${json.msg ?? ''}`);
  return json;
}

/**
 * @param {{ storeUrl: string, rootToken: string, descriptionFile: string, image: string, digest?: string,
 *           reviewers: { username: string, organizationId: number, token: string }[] }} o
 *   `digest`: the image's; left out, the local image's content digest (`docker image inspect`).
 * @returns the approved algorithm
 */
export async function publishAlgorithm(o) {
  const digest =
    o.digest ?? (await run('docker', ['image', 'inspect', '--format', '{{.Id}}', o.image])).stdout.trim();
  const description = JSON.parse(await readFile(o.descriptionFile, 'utf8'));
  const algorithm = await call(o.storeUrl, 'POST', '/algorithm', o.rootToken, {
    ...description,
    image: `${o.image}@${digest}`,
  });
  for (const r of o.reviewers) {
    const user = await call(o.storeUrl, 'POST', '/user', o.rootToken, {
      username: r.username,
      organization_id: r.organizationId,
      roles: ['reviewer'],
    });
    const review = await call(o.storeUrl, 'POST', '/review', o.rootToken, {
      algorithm_id: algorithm.id,
      reviewer_id: user.id,
    });
    await call(o.storeUrl, 'POST', `/review/${review.id}/approve`, r.token, {
      comment: 'reads only the column it is given',
    });
  }
  return call(o.storeUrl, 'GET', `/algorithm/${algorithm.id}`, o.rootToken);
}
