/**
 * A node's online history on its page, at a laptop's width (1440×900) and a phone's (390×844) in Debian's Chromium:
 * a node that connected over a real socket, left and came back shows as online since its return, with the earlier
 * period ended and why; a node that never connected says so. No sideways scroll, no console error, no serious
 * accessibility fault. Screenshots go to .data/ui-screenshots/node-history/.
 */
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SOCKET_NAMESPACE, SOCKET_PATH } from '@federa/common';
import { createFederation, type E2eServer, type Federation, startE2eServer, until } from '@federa/testing';
import { check, collectErrors, launch, login, must, ROOT, WIDTHS } from './kit.js';

const SHOTS = join(ROOT, '.data/ui-screenshots/node-history');
const tag = `hist${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
let server: E2eServer;
let fed: Federation;
let browser: Browser;
let socket: Socket | undefined;

interface Period {
  ended_at: string | null;
  end_reason: string | null;
}

const periods = async (nodeId: number): Promise<Period[]> =>
  must(server.api<Period[]>('GET', `/node/${nodeId}/history`), 'history');

/** The node's socket as a node opens it (its token in the Authorization header); resolves once connected. */
async function connectNode(apiKey: string): Promise<Socket> {
  const { access_token: token } = await must(
    server.api<{ access_token: string }>('POST', '/token/node', { api_key: apiKey }),
    'node token',
  );
  const c = io(`${server.url}${SOCKET_NAMESPACE}`, {
    path: SOCKET_PATH,
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    extraHeaders: { Authorization: `Bearer ${token}` },
  });
  await new Promise<void>((resolve, reject) => {
    c.once('connect', resolve);
    c.once('connect_error', reject);
  });
  return c;
}

beforeAll(async () => {
  server = await startE2eServer();
  fed = await createFederation(server, false, tag, ['a', 'b']);
  const node = fed.orgs[0]!;
  // A period of three days ago, five hours long, that ended when the node stopped answering.
  const at = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 3_600_000).toISOString().replace('Z', '');
  await server.ctx.dbh.db
    .insertInto('node_online_period')
    .values({ node_id: node.nodeId, started_at: at(72), ended_at: at(67), end_reason: 'timed_out' })
    .execute();
  // Online, stopped, online again: the page shows it online since its return.
  const first = await connectNode(node.apiKey);
  await until(
    'online',
    () => periods(node.nodeId),
    (p) => p.length === 2 && p[0]!.ended_at === null,
  );
  first.disconnect();
  await until(
    'offline',
    () => periods(node.nodeId),
    (p) => p[0]!.end_reason === 'disconnected',
  );
  socket = await connectNode(node.apiKey);
  await until(
    'online again',
    () => periods(node.nodeId),
    (p) => p.length === 3 && p[0]!.ended_at === null,
  );
  browser = await launch(SHOTS);
}, 120_000);

afterAll(async () => {
  socket?.disconnect();
  await browser?.close();
  await server?.close();
}, 60_000);

describe("a node's online history", () => {
  for (const size of WIDTHS)
    it(`${size.width}×${size.height}: periods with start, end, duration and why; an empty state`, async () => {
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const errors = collectErrors(page, /status of 401/);
      const shot = (name: string) =>
        page.screenshot({ path: join(SHOTS, `${name}-${size.width}.png`), fullPage: true });
      await page.goto(`${server.url}/#/node/${fed.orgs[0]!.nodeId}`);
      await login(page);

      const history = page.getByRole('region', { name: 'Online history' });
      await expect.poll(() => history.getByText(/^Online since .+ \(.+ so far\)\.$/).isVisible()).toBe(true);
      const rows = history.locator('tbody tr');
      expect(await rows.count()).toBe(3);
      const cells = async (i: number) =>
        (await rows.nth(i).locator('td').allTextContents()).map((text) => text.trim());
      const [current, stopped, timedOut] = [await cells(0), await cells(1), await cells(2)];
      expect(current[1]).toBe('now (online)');
      expect(current[2]).toMatch(/^(under 1 s|(\d+ (min|s) ?)+) so far$/);
      expect(current[3]).toBe('—');
      expect(stopped[2]).toMatch(/^(under 1|\d+) s$/);
      expect(stopped[3]).toBe('the node disconnected (stopped)');
      expect(timedOut[2]).toBe('5 h');
      expect(timedOut[3]).toBe('the node stopped answering');
      if (size.width < 800) {
        // On a phone every value stands under its label: the table's header row is not shown.
        expect(await history.locator('thead').isVisible()).toBe(false);
      }
      await page.waitForLoadState('networkidle');
      await check(page, errors, 'node history');
      await shot('online');

      await page.goto(`${server.url}/#/node/${fed.orgs[1]!.nodeId}`);
      await expect
        .poll(() =>
          page.getByText('Never online: the node has not connected to this server yet.').isVisible(),
        )
        .toBe(true);
      await page.waitForLoadState('networkidle');
      await check(page, errors, 'node never online');
      await shot('never-online');
      await context.close();
    }, 60_000);
});
