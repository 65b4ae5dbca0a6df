import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServerConfig } from '../config/load.js';
import { startTestApp, type TestApp } from '@federa/testing';

/** The section `<tag>…</tag>` of an OpenVPN configuration. */
const section = (config: string, tag: string): string => {
  const m = new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(config);
  if (!m?.[1]) throw new Error(`no <${tag}> in the configuration`);
  return m[1];
};

let t: TestApp;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'federa-vpn-routes-'));
  // run_server false: the certificate work without an OpenVPN process (the tunnel test runs a real one).
  t = await startTestApp({
    config: { vpn: { host: 'vpn.example.org', port: 1194, run_server: false, directory: dir } },
  });
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the VPN certificate authority', () => {
  it('is created at the first start with private keys readable by the owner only', () => {
    for (const f of ['ca.crt', 'ca.key', 'server.crt', 'server.key', 'tls-crypt.key', 'server.conf'])
      expect(existsSync(join(dir, f)), f).toBe(true);
    for (const f of ['ca.key', 'server.key', 'tls-crypt.key'])
      expect(statSync(join(dir, f)).mode & 0o077, f).toBe(0);
    const ca = new X509Certificate(readFileSync(join(dir, 'ca.crt')));
    expect(ca.ca).toBe(true);
    const server = new X509Certificate(readFileSync(join(dir, 'server.crt')));
    expect(server.checkIssued(ca)).toBe(true);
    expect(server.verify(ca.publicKey)).toBe(true);
    const conf = readFileSync(join(dir, 'server.conf'), 'utf8');
    expect(conf).toContain('server 10.76.0.0 255.255.0.0');
    expect(conf).toContain('crl-verify revoked dir');
  });
});

describe('the vpn section of the configuration', () => {
  it('a subnet that is not a usable one stops the server before anything starts, naming the file and key', () => {
    for (const subnet of ['10.76.0.0/40', '10.76.0.0/31', '300.1.0.0/16'])
      expect(() =>
        parseServerConfig(
          { root_user: { email: 'r@example.org' }, vpn: { host: 'vpn.example.org', subnet } },
          'server.yaml',
        ),
      ).toThrow(/server\.yaml: key 'vpn\.subnet'/);
  });
});

describe('GET /vpn and POST /vpn/update with a VPN', () => {
  it('gives each node a configuration with a certificate of its own, signed by the CA', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const node = await t.fx.node(org, collab);
    const res = await t.api('GET', '/vpn', { token: await node.token() });
    expect(res.status).toBe(200);
    const config: string = res.body.ovpn_config;
    expect(config).toMatch(/^remote vpn\.example\.org 1194$/m);
    expect(config).toMatch(/^proto udp$/m);
    const ca = new X509Certificate(section(config, 'ca'));
    const cert = new X509Certificate(section(config, 'cert'));
    expect(cert.subject).toBe(`CN=node-${node.id}`);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.keyUsage).toContain('1.3.6.1.5.5.7.3.2'); // clientAuth only
    expect(cert.keyUsage).not.toContain('1.3.6.1.5.5.7.3.1');
    const days = (Date.parse(cert.validTo) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
    expect(section(config, 'key')).toContain('PRIVATE KEY');
    expect(section(config, 'tls-crypt')).toContain('OpenVPN Static key V1');
  });

  it('renews with a new certificate and revokes all but the previous one', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const node = await t.fx.node(org, collab);
    const token = await node.token();
    const serials: string[] = [];
    let config = (await t.api('GET', '/vpn', { token })).body.ovpn_config as string;
    serials.push(BigInt(`0x${new X509Certificate(section(config, 'cert')).serialNumber}`).toString());
    for (let i = 0; i < 2; i++) {
      const res = await t.api('POST', '/vpn/update', { token, body: { vpn_config: config } });
      expect(res.status).toBe(200);
      config = res.body.ovpn_config;
      serials.push(BigInt(`0x${new X509Certificate(section(config, 'cert')).serialNumber}`).toString());
    }
    expect(new Set(serials).size).toBe(3);
    const revoked = readdirSync(join(dir, 'revoked'));
    expect(revoked).toContain(serials[0]);
    expect(revoked).not.toContain(serials[1]);
    expect(revoked).not.toContain(serials[2]);
  });

  it('refuses a renewal without the current configuration, and callers that are not nodes', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const node = await t.fx.node(org, collab);
    const missing = await t.api('POST', '/vpn/update', { token: await node.token(), body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toContain('vpn_config');
    expect((await t.api('GET', '/vpn', { token: t.rootToken })).status).toBe(401);
  });

  it('revokes every certificate of a deleted node', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const node = await t.fx.node(org, collab);
    const token = await node.token();
    const first = (await t.api('GET', '/vpn', { token })).body.ovpn_config as string;
    const second = (await t.api('POST', '/vpn/update', { token, body: { vpn_config: first } })).body
      .ovpn_config as string;
    const serial = (c: string) =>
      BigInt(`0x${new X509Certificate(section(c, 'cert')).serialNumber}`).toString();
    expect(readdirSync(join(dir, 'revoked'))).not.toContain(serial(second));
    expect((await t.api('DELETE', `/node/${node.id}`, { token: t.rootToken })).status).toBe(200);
    const revoked = readdirSync(join(dir, 'revoked'));
    expect(revoked).toContain(serial(first));
    expect(revoked).toContain(serial(second));
  });
});

describe('POST /recover/node with a VPN', () => {
  it("revokes every certificate the node's old API key obtained, and the new key gets a valid one", async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const node = await t.fx.node(org, collab);
    const token = await node.token();
    const first = (await t.api('GET', '/vpn', { token })).body.ovpn_config as string;
    const second = (await t.api('POST', '/vpn/update', { token, body: { vpn_config: first } })).body
      .ovpn_config as string;
    const serial = (c: string) =>
      BigInt(`0x${new X509Certificate(section(c, 'cert')).serialNumber}`).toString();
    expect(readdirSync(join(dir, 'revoked'))).not.toContain(serial(second));
    const reset = await t.api('POST', '/recover/node', { token: t.rootToken, body: { id: node.id } });
    expect(reset.status).toBe(200);
    const revoked = readdirSync(join(dir, 'revoked'));
    expect(revoked).toContain(serial(first));
    expect(revoked).toContain(serial(second));
    // The old key's session has ended; the new key gets a certificate that is not revoked.
    expect((await t.api('GET', '/vpn', { token })).status).toBe(401);
    const login = await t.api('POST', '/token/node', { body: { api_key: reset.body.api_key } });
    expect(login.status).toBe(200);
    const fresh = await t.api('GET', '/vpn', { token: login.body.access_token });
    expect(fresh.status).toBe(200);
    expect(readdirSync(join(dir, 'revoked'))).not.toContain(serial(fresh.body.ovpn_config as string));
  });
});

describe('a node that asks for VPN certificates again and again', () => {
  it('is answered 429 with Retry-After while its key is being made, and the API stays fast meanwhile', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const node = await t.fx.node(org, collab);
    const token = await node.token();
    const calls = Array.from({ length: 20 }, () =>
      t.api('POST', '/vpn/update', { token, body: { vpn_config: 'client\nremote vpn.example.org' } }),
    );
    // GET /version, one after the other, while those calls are being answered.
    const latencies: number[] = [];
    const measuring = (async () => {
      for (let i = 0; i < 10; i++) {
        const before = performance.now();
        expect((await t.api('GET', '/version')).status).toBe(200);
        latencies.push(performance.now() - before);
      }
    })();
    const answers = await Promise.all(calls);
    await measuring;
    latencies.sort((a, b) => a - b);
    const median = latencies[Math.floor(latencies.length / 2)]!;
    // Each key takes hundreds of milliseconds on this machine; on the event loop, 20 of them held /version for
    // seconds. Off it, /version waits for nothing.
    expect(median, `GET /version latencies ${latencies.map((l) => l.toFixed(0)).join(', ')} ms`).toBeLessThan(
      150,
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(19);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.body.code).toBe('rate_limited');
    expect(refused.body.msg).toContain('being made already');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
