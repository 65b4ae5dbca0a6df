import { describe, expect, it } from 'vitest';
import { io as connectClient, type Socket } from 'socket.io-client';
import { ADMISSION_HEADER, ADMISSION_RETRY_AFTER } from '@federa/common';
import type { TestApp } from '@federa/testing';
import { useSocketApp } from '@federa/testing/hooks';
import { Admission, MAX_RETRY_MS, MIN_RETRY_MS } from './admission.js';
import type { SocketServer } from './socket-server.js';

describe('Admission', () => {
  it('admits up to maxPending sockets, then hands each refused one its own later slot', () => {
    let now = 0;
    const a = new Admission({ maxPending: 2, now: () => now });
    expect(a.enter('a')).toEqual({ admitted: true });
    expect(a.enter('b')).toEqual({ admitted: true });
    const hints = ['c', 'd', 'e'].map((id) => a.enter(id));
    const ms = hints.map((h) => (h.admitted ? -1 : h.retryAfterMs));
    // No rate measured yet: 50 a second, the 2 pending first, then one slot each (20 ms apart, at least 500 ms).
    expect(ms.every((m) => m >= MIN_RETRY_MS)).toBe(true);
    a.done('a');
    expect(a.enter('c')).toEqual({ admitted: true });
    expect(a.stats).toEqual({ admitted: 3, refused: 3 });
    // A measured pace of 10 admissions a second spreads 100 refused sockets over about 10 s.
    const b = new Admission({ maxPending: 1, now: () => now });
    for (let second = 0; second < 6; second++) {
      for (let i = 0; i < 10; i++) {
        b.enter(`s${second}-${i}`);
        b.done(`s${second}-${i}`);
      }
      now += 1000;
    }
    expect(b.rate).toBeGreaterThan(9);
    expect(b.rate).toBeLessThan(16);
    b.enter('busy');
    const slots = Array.from({ length: 100 }, (_, i) => b.enter(`r${i}`)).map((h) =>
      h.admitted ? -1 : h.retryAfterMs,
    );
    for (let i = 1; i < slots.length; i++) expect(slots[i]).toBeGreaterThanOrEqual(slots[i - 1]!);
    expect(new Set(slots).size).toBeGreaterThan(90);
    expect(slots[99]).toBeGreaterThan(6_000);
    expect(slots[99]).toBeLessThanOrEqual(MAX_RETRY_MS);
  });

  it('frees a place once, however often done() is called', () => {
    const a = new Admission({ maxPending: 1 });
    expect(a.enter('a').admitted).toBe(true);
    a.done('a');
    a.done('a');
    expect(a.pending).toBe(0);
    expect(a.enter('b').admitted).toBe(true);
    expect(a.enter('c').admitted).toBe(false);
  });
});

describe('socket admission on a real server', () => {
  let t: TestApp;
  let sockets: SocketServer;
  let url: string;
  useSocketApp(({ s }) => ({ t, sockets, url } = s), { config: { socket_max_pending: 1 } });

  it('refuses handshakes beyond socket_max_pending with server_busy and a retry hint; each gets in when it comes back', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const node = await t.fx.node(org, collab);
    const token = await node.token();
    const refusals: unknown[] = [];
    const clients: Socket[] = [];
    const connectOne = (): Promise<void> =>
      new Promise((resolve) => {
        const c = connectClient(`${url}/tasks`, {
          forceNew: true,
          reconnection: false,
          transports: ['websocket'],
          // As the Federa node: it says it honours the hint, so the connection stays open after a refusal.
          extraHeaders: { Authorization: `Bearer ${token}`, [ADMISSION_HEADER]: ADMISSION_RETRY_AFTER },
        });
        clients.push(c);
        c.on('connect', () => resolve());
        c.on('connect_error', (err: Error & { data?: { retry_after_ms?: number } }) => {
          refusals.push(err.data);
          // What the Federa node does: come back when told (the engine connection stays open).
          setTimeout(() => c.connect(), err.data?.retry_after_ms ?? 1000);
        });
      });
    await Promise.all(Array.from({ length: 8 }, connectOne));
    expect(clients.every((c) => c.connected)).toBe(true);
    expect(refusals.length).toBeGreaterThan(0);
    for (const r of refusals)
      expect(r).toEqual({ code: 'server_busy', retry_after_ms: expect.any(Number) as unknown as number });
    // Each place is freed once its socket is in its rooms and marked online.
    for (let i = 0; i < 100 && sockets.admission?.pending !== 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(sockets.admission?.pending).toBe(0);
    for (const c of clients) c.disconnect();
  }, 60_000);

  it('does not count handshakes without a token, or with a forged one: a flood of them keeps no node out', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const token = await (await t.fx.node(org, collab)).token();
    const before = { ...sockets.admission!.stats };
    const answers: string[] = [];
    const open = (headers: Record<string, string>): Promise<Socket> =>
      new Promise((done) => {
        let answered = false;
        const resolve = (c: Socket, answer?: string): void => {
          if (answered) return;
          answered = true;
          if (answer !== undefined) answers.push(answer);
          done(c);
        };
        const c = connectClient(`${url}/tasks`, {
          forceNew: true,
          reconnection: false,
          transports: ['websocket'],
          extraHeaders: headers,
        });
        c.on('expired_token', () => resolve(c, 'expired_token'));
        c.on('connect', () => {
          if (headers.Authorization === `Bearer ${token}`) resolve(c);
        });
        c.on('connect_error', (err: Error & { data?: { code?: string } }) =>
          resolve(c, err.data?.code ?? err.message),
        );
      });
    const forged = `${token.slice(0, -4)}AAAA`;
    const flood = await Promise.all(
      Array.from({ length: 40 }, (_, i) => open(i % 2 ? { Authorization: `Bearer ${forged}` } : {})),
    );
    // Every anonymous socket is connected and told expired_token; none took a place or a retry slot.
    expect(answers).toEqual(Array.from({ length: 40 }, () => 'expired_token'));
    expect(sockets.admission!.stats).toEqual(before);
    // The node is admitted at its first try.
    const node = await open({ Authorization: `Bearer ${token}` });
    expect(node.connected).toBe(true);
    expect(sockets.admission!.stats).toEqual({ admitted: before.admitted + 1, refused: before.refused });
    for (const c of [...flood, node]) c.disconnect();
  }, 60_000);
});
