/**
 * Rooms and events over real sockets (docs/socket-protocol.md): who hears a new task, a status update and a run's
 * status change, and what a node's own events store. Real server on port 0, real socket.io clients, on SQLite and
 * (FEDERA_TEST_DB=postgres) PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import type { AlgorithmStatusChangePayload } from '@federa/common';
import {
  connected,
  hear,
  nodeView,
  received,
  researcherPostsTask,
  socketNetwork,
  until,
  userStatus,
  type SocketApp,
  type TestApp,
} from '@federa/testing';
import { useSocketApp } from '@federa/testing/hooks';

let s: SocketApp;
let t: TestApp;
/** The server's warnings, one JSON line each: a refused report is known by its log line. */
const warnings: string[] = [];
useSocketApp((started) => ({ s, t } = started), {
  log: pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) }),
});

const connect = (token: string) => s.connect(token, { transports: ['polling', 'websocket'] });
const online = (userId: number) =>
  until(
    `user ${userId} online`,
    () => userStatus(t, userId),
    (v) => v === 'online',
  );

describe('rooms and events', () => {
  it('delivers new_task to the nodes of the collaboration and not to a node of another collaboration', async () => {
    const { orgs, collab, nodes } = await socketNetwork(t);
    const otherCollab = await t.fx.collaboration([orgs[0]!]);
    const outsider = await t.fx.node(orgs[0]!, otherCollab);
    const inside = [connect(await nodes[0]!.token()), connect(await nodes[1]!.token())];
    const outside = connect(await outsider.token());
    await Promise.all([...inside, outside].map(connected));
    await Promise.all([s.settled(nodes[0]!.id, 1), s.settled(nodes[1]!.id, 1), s.settled(outsider.id, 1)]);
    const outsiderGot = hear(outside, ['new_task']);

    const task = await t.fx.task(collab, orgs);
    const arrivals = inside.map((c) => received(c, 'new_task'));
    t.ctx.events.emit(`collaboration_${collab}`, 'new_task', task.id);
    for (const a of arrivals) expect(await a).toEqual([task.id]);
    await s.quiet(outside);
    expect(outsiderGot).toEqual([]);
  });

  it('delivers new_task and task_created to the nodes when a user posts a task through the API', async () => {
    const { orgs, collab, nodes } = await socketNetwork(t);
    const c = connect(await nodes[1]!.token());
    await connected(c);
    await s.settled(nodes[1]!.id, 1);
    const created = received(c, 'task_created');
    const arrived = received(c, 'new_task');
    const r = await researcherPostsTask(t, collab, orgs, 'socket test');
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(await arrived).toEqual([r.body.id]);
    expect((await created)[0]).toMatchObject({ task_id: r.body.id, collaboration_id: collab });
  });

  it('tells of a new task only the nodes with a run in it, and the users watching the collaboration', async () => {
    const { orgs, collab, nodes } = await socketNetwork(t);
    const researcher = await t.fx.user(orgs[0]!, { roles: ['Researcher'] });
    const watcher = await t.fx.user(orgs[0]!, { rules: ['event.v_col'] });
    const [withRun, withoutRun, user] = [
      connect(await nodes[0]!.token()),
      connect(await nodes[1]!.token()),
      connect(await watcher.token()),
    ];
    await Promise.all([withRun, withoutRun, user].map(connected));
    await Promise.all([s.settled(nodes[0]!.id, 1), s.settled(nodes[1]!.id, 1)]);
    await online(watcher.id);
    await s.presence.idle();
    const idle = hear(withoutRun, ['new_task', 'task_created']);
    const told = [received(withRun, 'new_task'), received(user, 'new_task')];
    const created = [received(withRun, 'task_created'), received(user, 'task_created')];
    const r = await t.api('POST', '/task', {
      token: await researcher.token(),
      body: {
        collaboration_id: collab,
        organizations: [{ id: orgs[0]!, input: 'aW5wdXQ=' }],
        image: 'example/image',
        name: 'for one organization',
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    for (const got of told) expect(await got).toEqual([r.body.id]);
    for (const got of created) expect((await got)[0]).toMatchObject({ task_id: r.body.id });
    // The node of an organization that neither runs nor asked for the task hears nothing of it.
    await s.quiet(withoutRun);
    expect(idle).toEqual([]);
  });

  it('lets users watch collaborations per their event rules', async () => {
    const { orgs, collab } = await socketNetwork(t);
    const colViewer = await t.fx.user(orgs[0]!, { rules: ['event.v_col'] });
    const orgViewer = await t.fx.user(orgs[1]!, { rules: ['event.v_org'] });
    const stranger = await t.fx.user(await t.fx.organization(), { rules: ['event.v_col'] });
    const [a, b, st, root] = [
      connect(await colViewer.token()),
      connect(await orgViewer.token()),
      connect(await stranger.token()),
      connect(t.rootToken),
    ];
    await Promise.all([a, b, st, root].map(connected));
    for (const u of [colViewer, orgViewer, stranger]) await online(u.id);
    await s.presence.idle();
    const got = { b: hear(b, ['status_update']), s: hear(st, ['status_update']) };
    const arrivals = [received(a, 'status_update'), received(root, 'status_update')];
    t.ctx.events.emit(`collaboration_${collab}`, 'status_update', { result_id: 7 });
    for (const p of arrivals) expect(await p).toEqual([{ result_id: 7 }]);
    const orgRoom = received(b, 'status_update');
    t.ctx.events.emit(`collaboration_${collab}_organization_${orgs[1]}`, 'status_update', { result_id: 8 });
    expect(await orgRoom).toEqual([{ result_id: 8 }]);
    await Promise.all([s.quiet(b), s.quiet(st)]);
    expect(got.b).toEqual([['status_update', { result_id: 8 }]]);
    expect(got.s).toEqual([]);
  });

  it("relays algorithm_status_change with the run id to the run's audience, and a failure to every node", async () => {
    const { orgs, collab, nodes } = await socketNetwork(t);
    const task = await t.fx.task(collab, orgs);
    const viewer = await t.fx.user(orgs[1]!, { rules: ['event.v_col'] });
    const sender = connect(await nodes[0]!.token());
    // The node of orgs[1]: neither the run's organization nor the task's initiator.
    const otherNode = connect(await nodes[1]!.token());
    const user = connect(await viewer.token());
    await Promise.all([sender, otherNode, user].map(connected));
    await Promise.all([s.settled(nodes[0]!.id, 1), s.settled(nodes[1]!.id, 1)]);
    await online(viewer.id);
    const heardByOtherNode = hear(otherNode, ['algorithm_status_change']);
    const relayed = received(user, 'algorithm_status_change');
    const echoed = received(sender, 'algorithm_status_change');
    const report = (status: string, resultId = task.resultIds[0]!) =>
      sender.emit('algorithm_status_change', {
        node_id: nodes[0]!.id,
        status,
        result_id: resultId,
        task_id: task.id,
        collaboration_id: collab,
        organization_id: orgs[0]!,
        parent_id: null,
      });
    report('active');
    const expected: AlgorithmStatusChangePayload = {
      status: 'active',
      result_id: task.resultIds[0]!,
      task_id: task.id,
      run_id: task.runId,
      collaboration_id: collab,
      node_id: nodes[0]!.id,
      organization_id: orgs[0]!,
      parent_id: null,
    };
    expect((await relayed)[0]).toEqual(expected);
    expect((await echoed)[0]).toEqual(expected);

    // A failure reaches every node of the collaboration (vantage6 3.x nodes log it for their administrator).
    const failure = received(otherNode, 'algorithm_status_change');
    report('crashed');
    expect((await failure)[0]).toEqual({ ...expected, status: 'crashed' });
    // The other node heard the failure only, not that the run became active.
    await s.quiet(otherNode);
    expect(heardByOtherNode).toEqual([['algorithm_status_change', { ...expected, status: 'crashed' }]]);

    // A node cannot report on the result of another organization: the server logs the refusal and relays nothing.
    const ignored = hear(user, ['algorithm_status_change']);
    report('failed', task.resultIds[1]!);
    await until(
      'the refusal logged',
      () => warnings.filter((l) => l.includes('"socket.status_change_refused"')).length,
      (n) => n === 1,
    );
    await s.quiet(user);
    expect(ignored).toEqual([]);
  });

  it('stores node_info_update as one row per scalar and per list element, and drops it on disconnect', async () => {
    const { nodes } = await socketNetwork(t);
    const c = connect(await nodes[0]!.token());
    await connected(c);
    c.emit('node_info_update', {
      encryption: false,
      allowed_algorithms: ['^harbor\\.example/.*', 'other/image'],
      allowed_orgs: [3, 'Org name'],
    });
    await s.settled(nodes[0]!.id, 1);
    const config = await until(
      'config stored',
      async () => (await nodeView(t, nodes[0]!.id)).config,
      (cfg) => cfg.length === 5,
    );
    expect(config).toEqual([
      { key: 'encryption', value: 'False' },
      { key: 'allowed_algorithms', value: '^harbor\\.example/.*' },
      { key: 'allowed_algorithms', value: 'other/image' },
      { key: 'allowed_orgs', value: '3' },
      { key: 'allowed_orgs', value: 'Org name' },
    ]);
    c.emit('node_info_update', { encryption: true, allowed_algorithms: 'all' });
    await until(
      'config replaced',
      async () => (await nodeView(t, nodes[0]!.id)).config,
      (cfg) => cfg.length === 2,
    );
    c.disconnect();
    await s.settled(nodes[0]!.id, 0);
    expect((await nodeView(t, nodes[0]!.id)).config).toEqual([]);
  });

  it('refreshes last_seen on ping', async () => {
    const { nodes } = await socketNetwork(t);
    const c = connect(await nodes[0]!.token());
    await connected(c);
    await s.settled(nodes[0]!.id, 1);
    await t.ctx.dbh.db
      .updateTable('node')
      .set({ last_seen: '2000-01-01T00:00:00.000000' })
      .where('id', '=', nodes[0]!.id)
      .execute();
    c.emit('ping');
    const seen = await until(
      'last_seen refreshed',
      async () => (await nodeView(t, nodes[0]!.id)).last_seen,
      (v) => v !== null && !v.startsWith('2000-'),
    );
    expect(Date.now() - Date.parse(seen!)).toBeLessThan(60_000);
  });
});
