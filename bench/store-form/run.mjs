#!/usr/bin/env node
// Benchmark: the task form the algorithm store generates, in Chromium. Prints how long the form takes to be
// interactive (from navigation until an argument field takes a keystroke and the collaboration list is filled),
// beside its ceiling of 300 ms: after a click on "Create a task" in the catalogue (inside the page), and after a
// reload of the form's address (the whole page loaded, the session resumed). Median and slowest of --runs.
// Needs `npm run build` first (the server serves packages/ui/dist) and /usr/bin/chromium.
//   node bench/store-form/run.mjs [--arguments 12] [--runs 9]
import { chromium } from 'playwright-core';
import { UserClient } from '@federa/client';
import { numberOption } from '../lib/load.mjs';
import { startUiBenchServer } from '../lib/ui-server.mjs';

const CEILING_MS = 300;
const ARGUMENTS = numberOption('arguments', 12);
const RUNS = numberOption('runs', 9);
const TYPES = [
  'column',
  'integer',
  'float',
  'string',
  'boolean',
  'column_list',
  'string_list',
  'integer_list',
  'float_list',
  'organization',
  'organization_list',
  'json',
];
const { server, password, stop } = await startUiBenchServer('federa-bench-form-');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The store inside the server, as root or another user. */
async function store(method, path, body, token) {
  const res = await fetch(`${server.url}/store/api${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status > 210) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

try {
  const client = new UserClient({ host: 'http://127.0.0.1', port: server.port, apiPath: '/api' });
  await client.authenticate('root', password);
  const rootToken = await client.accessToken();
  const me = await client.user.me();
  const other = await client.organization.create({ name: 'bench-reviewers' });
  await client.collaboration.create({
    name: 'bench',
    organizationIds: [me.organization.id, other.id],
    encrypted: false,
  });
  await client.user.create({
    username: 'bench-reviewer',
    email: 'r@bench.local',
    password,
    organizationId: other.id,
    firstname: 'R',
    lastname: 'R',
  });
  const reviewer = new UserClient({ host: 'http://127.0.0.1', port: server.port, apiPath: '/api' });
  await reviewer.authenticate('bench-reviewer', password);

  // One algorithm whose central function takes --arguments arguments, cycling through every type.
  const args = Array.from({ length: ARGUMENTS }, (_, i) => ({
    name: `arg_${i}`,
    display_name: `Argument ${i}`,
    description: `The ${TYPES[i % TYPES.length]} argument number ${i}`,
    type: TYPES[i % TYPES.length],
    ...(i > 0 ? { has_default_value: true } : {}),
  }));
  const algorithm = await store(
    'POST',
    '/algorithm',
    {
      name: 'bench-form',
      display_name: 'Form bench',
      description: 'An algorithm with many typed arguments',
      image: `registry.example.org/bench/form:1@sha256:${'c0ffee'.repeat(10)}c0fe`,
      partitioning: 'horizontal',
      vantage6_version: '3.11',
      code_url: 'https://example.org/form',
      functions: [
        {
          name: 'central',
          display_name: 'Central',
          type: 'central',
          standalone: true,
          databases: [{ name: 'Data' }],
          arguments: args,
        },
      ],
    },
    rootToken,
  );
  const storeReviewer = await store(
    'POST',
    '/user',
    { username: 'bench-reviewer', roles: ['reviewer'] },
    rootToken,
  );
  await store('PATCH', '/policy', { min_reviewers: 1, min_reviewing_organizations: 1 }, rootToken);
  const review = await store(
    'POST',
    '/review',
    { algorithm_id: algorithm.id, reviewer_id: storeReviewer.id },
    rootToken,
  );
  await store('POST', `/review/${review.id}/approve`, {}, await reviewer.accessToken());

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
  await page.goto(`${server.url}/`);
  await page.getByLabel('Username').fill('root');
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Collaborations' }).waitFor();

  /** Until the form answers: the collaboration list is filled and the first argument takes a keystroke. */
  const interactive = async () => {
    const form = page.getByRole('form', { name: 'New task' });
    await form
      .getByLabel('Collaboration')
      .locator('option', { hasText: 'bench' })
      .waitFor({ state: 'attached' });
    const field = form.getByLabel('Argument 0', { exact: true });
    await field.pressSequentially('a', { delay: 0 });
    await page.waitForFunction(() => document.activeElement?.value === 'a');
  };
  const inPage = [];
  const reload = [];
  for (let i = 0; i < RUNS; i++) {
    await page.goto(`${server.url}/#/store`);
    const create = page.getByRole('link', { name: 'Create a task' });
    await create.waitFor();
    let start = Date.now();
    await create.click();
    await interactive();
    inPage.push(Date.now() - start);
    start = Date.now();
    await page.reload();
    await interactive();
    reload.push(Date.now() - start);
  }
  await browser.close();
  const row = (measure, xs) => ({
    measure,
    median: `${median(xs)} ms`,
    slowest: `${Math.max(...xs)} ms`,
    [`median < ${CEILING_MS} ms`]: median(xs) < CEILING_MS ? 'yes' : 'NO',
  });
  console.log(
    `The generated task form: one function with ${ARGUMENTS} arguments (every type), ${RUNS} runs; ceiling ${CEILING_MS} ms`,
  );
  console.table([
    row('from "Create a task" in the catalogue to a field taking input', inPage),
    row('reload of the form (page, session, algorithm, collaborations)', reload),
  ]);
} finally {
  await stop();
}
