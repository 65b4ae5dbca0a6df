import type { ApiResponse, TestApp } from './test-app.js';

/** The socket tests' usual federation: two organizations in a collaboration, each with a node. */
export async function socketNetwork(t: TestApp): Promise<{
  orgs: number[];
  collab: number;
  nodes: Awaited<ReturnType<TestApp['fx']['node']>>[];
}> {
  const orgs = [await t.fx.organization(), await t.fx.organization()];
  const collab = await t.fx.collaboration(orgs);
  const nodes = [await t.fx.node(orgs[0]!, collab), await t.fx.node(orgs[1]!, collab)];
  return { orgs, collab, nodes };
}

/** The user's stored online status. */
export async function userStatus(t: TestApp, id: number): Promise<string | null> {
  const row = await t.ctx.dbh.db
    .selectFrom('user')
    .select('status')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.status;
}

/** The node as the API shows it to root. */
export async function nodeView(
  t: TestApp,
  id: number,
): Promise<{ status: string | null; last_seen: string | null; config: { key: string; value: string }[] }> {
  const r = await t.api('GET', `/node/${id}`, { token: t.rootToken });
  if (r.status !== 200) throw new Error(`GET /node/${id} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A researcher of `orgs[0]` posts a task for all of `orgs` through the API, as a user does; answers the response. */
export async function researcherPostsTask(
  t: TestApp,
  collab: number,
  orgs: number[],
  name: string,
): Promise<ApiResponse> {
  const researcher = await t.fx.user(orgs[0]!, { roles: ['Researcher'] });
  return t.api('POST', '/task', {
    token: await researcher.token(),
    body: {
      collaboration_id: collab,
      organizations: orgs.map((id) => ({ id, input: 'aW5wdXQ=' })),
      image: 'example/image',
      name,
      database: 'default',
    },
  });
}
