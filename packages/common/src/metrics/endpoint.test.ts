import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMetricsAccess, listenMetrics, type MetricsListener } from './endpoint.js';

describe('who may read the metrics', () => {
  it('without a token: the loopback addresses, unless a proxy forwarded the request', () => {
    for (const address of ['127.0.0.1', '127.8.0.2', '::1', '::ffff:127.0.0.1'])
      expect(checkMetricsAccess({}, address, {}), address).toBeNull();
    for (const address of ['10.0.0.5', '192.168.1.2', '::ffff:10.0.0.5', 'fe80::1', undefined])
      expect(checkMetricsAccess({}, address, {}), String(address)).toMatch(/loopback/);
    expect(checkMetricsAccess({}, '127.0.0.1', { 'x-forwarded-for': '198.51.100.4' })).toMatch(/loopback/);
    expect(checkMetricsAccess({}, '127.0.0.1', { forwarded: 'for=198.51.100.4' })).toMatch(/loopback/);
  });

  it('with a token: its bearer from anywhere, and nobody else, loopback included', () => {
    const access = { token: 'a-token-of-sixteen+' };
    expect(
      checkMetricsAccess(access, '10.0.0.5', { authorization: 'Bearer a-token-of-sixteen+' }),
    ).toBeNull();
    expect(checkMetricsAccess(access, '127.0.0.1', {})).toMatch(/token/);
    expect(checkMetricsAccess(access, '127.0.0.1', { authorization: 'Bearer a-token-of-sixteen' })).toMatch(
      /token/,
    );
    expect(checkMetricsAccess(access, '127.0.0.1', { authorization: 'a-token-of-sixteen+' })).toMatch(
      /token/,
    );
  });
});

describe('a metrics listener of its own', () => {
  let listener: MetricsListener;
  let fail = false;
  const errors: unknown[] = [];
  beforeAll(async () => {
    listener = await listenMetrics({
      ip: '127.0.0.1',
      port: 0,
      path: '/m',
      access: {},
      text: async () => {
        if (fail) throw new Error('/secret/path/of/the/failure');
        return { contentType: 'text/plain; version=0.0.4; charset=utf-8', body: 'up 1\n' };
      },
      onError: (e) => errors.push(e),
    });
  });
  afterAll(async () => {
    await listener.close();
  });

  it('answers GET at its path, 404 elsewhere, 405 to other methods, and a fixed text when collecting fails', async () => {
    const base = `http://127.0.0.1:${listener.port}`;
    const ok = await fetch(`${base}/m`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('up 1\n');
    expect((await fetch(`${base}/other`)).status).toBe(404);
    const post = await fetch(`${base}/m`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    fail = true;
    const broken = await fetch(`${base}/m`);
    expect(broken.status).toBe(500);
    const text = await broken.text();
    expect(JSON.parse(text)).toEqual({ msg: 'The metrics could not be collected.', code: 'internal' });
    expect(text).not.toContain('secret');
    expect(errors).toHaveLength(1);
  });
});
