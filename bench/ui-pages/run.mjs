#!/usr/bin/env node
// Benchmark: the web UI in Chromium against a server whose collaboration holds 1,000 tasks.
// Prints the compressed JavaScript of the first load (login page) and how long the task page and the task
// list take to be interactive (from navigation to their content on screen), median of --runs.
// Needs `npm run build` first (the server serves packages/ui/dist) and /usr/bin/chromium.
//   node bench/ui-pages/run.mjs [--tasks 1000] [--runs 5]
import { chromium } from 'playwright-core';
import { UserClient } from '@federa/client';
import { numberOption } from '../lib/load.mjs';
import { startUiBenchServer } from '../lib/ui-server.mjs';

const TASKS = numberOption('tasks', 1000);
const RUNS = numberOption('runs', 5);
const { server, password, stop } = await startUiBenchServer('federa-bench-ui-');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  const client = new UserClient({ host: 'http://127.0.0.1', port: server.port, apiPath: '/api' });
  await client.authenticate('root', password);
  const me = await client.user.me();
  const collab = await client.collaboration.create({
    name: 'bench',
    organizationIds: [me.organization.id],
    encrypted: false,
  });
  // A registered node (never started): tasks need one; their runs stay pending.
  await client.node.create({ collaborationId: collab.id, organizationId: me.organization.id });
  const t0 = Date.now();
  let middle = 0;
  for (let i = 0; i < TASKS; i++) {
    const task = await client.task.create({
      collaborationId: collab.id,
      organizations: [me.organization.id],
      name: `task ${i}`,
      image: 'federa/average-python:local',
      input: { method: 'partial_average', args: ['age'], kwargs: {} },
    });
    if (i === Math.floor(TASKS / 2)) middle = task.id;
  }
  console.log(`${TASKS} tasks created in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1366, height: 860 } });
  const page = await context.newPage();
  let jsBytes = 0;
  page.on('response', async (r) => {
    if (r.url().endsWith('.js')) jsBytes += Number((await r.allHeaders())['content-length'] ?? 0);
  });
  await page.goto(`${server.url}/`);
  await page.getByRole('button', { name: 'Log in' }).waitFor();
  const firstLoadJs = jsBytes;
  await page.getByLabel('Username').fill('root');
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Collaborations' }).waitFor();

  const taskPage = [];
  const taskList = [];
  for (let i = 0; i < RUNS; i++) {
    // A cold load of a bookmarked task: the whole page, the session resumed, the task, its runs and tree.
    let start = Date.now();
    await page.goto(`${server.url}/#/task/${middle}`);
    await page.reload();
    await page.getByRole('heading', { name: new RegExp(`Task #${middle}:`) }).waitFor();
    await page.getByRole('cell', { name: 'pending' }).first().waitFor();
    taskPage.push(Date.now() - start);
    start = Date.now();
    await page.goto(`${server.url}/#/tasks?collaboration=${collab.id}`);
    await page.reload();
    await page.getByText(`Page 1 of ${Math.ceil(TASKS / 25)}`).waitFor();
    taskList.push(Date.now() - start);
  }
  await browser.close();
  console.table([
    { measure: 'first load (login page): JavaScript, gzip', value: `${(firstLoadJs / 1024).toFixed(1)} KB` },
    { measure: `task page interactive (${TASKS} tasks), median of ${RUNS}`, value: `${median(taskPage)} ms` },
    { measure: `task list interactive (${TASKS} tasks), median of ${RUNS}`, value: `${median(taskList)} ms` },
  ]);
} finally {
  await stop();
}
