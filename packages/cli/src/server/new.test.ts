import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { Asker } from '../util/asker.js';
import { KEYS, PromptDriver, tempXdg, uniqueName } from '@federa/testing';
import { checkServerConfig } from '../config/validate.js';
import { newServerConfig } from './new.js';

const dirs = tempXdg();
afterAll(() => dirs.cleanup());

describe('vserver new, driven through its prompts', () => {
  it('asks every question and writes the environment', async () => {
    const name = uniqueName('wiz');
    const driver = new PromptDriver([
      { ask: /Name of the server configuration/, type: `${name}${KEYS.enter}` },
      { ask: /Environment/, type: `${KEYS.down}${KEYS.enter}` }, // prod (default) → acc
      { ask: /Description/, type: `demo server${KEYS.enter}` },
      { ask: /IP address/, type: KEYS.enter },
      { ask: /Port/, type: `7601${KEYS.enter}` },
      { ask: /API path/, type: KEYS.enter },
      { ask: /Database URI/, type: KEYS.enter },
      { ask: /Allow dropping all tables/, type: KEYS.enter },
      { ask: /JWT secret/, type: `short${KEYS.enter}` },
      { ask: /at least 16 characters/, type: `${'\x7f'.repeat(5)}${KEYS.enter}` }, // emptied: generate
      { ask: /E-mail address of the root user/, type: `root@example.org${KEYS.enter}` },
      { ask: /Username of the root user/, type: KEYS.enter },
      { ask: /Password of the root user/, type: `s3cret-pass${KEYS.enter}` },
      { ask: /Log level/, type: KEYS.enter },
      { ask: /VPN between algorithms/, type: `vpn.example.org${KEYS.enter}` },
      { ask: /VPN port/, type: KEYS.enter },
      { ask: /VPN subnet/, type: `10.80.0.0/16${KEYS.enter}` },
    ]);
    const result = await newServerConfig({ scope: 'system' }, new Asker(true, driver.streams), dirs.env);
    expect(driver.unanswered).toEqual([]);
    expect(result.environment).toBe('acc');
    expect(result.file).toBe(`${dirs.env.XDG_CONFIG_DIRS}/federa/server/${name}.yaml`);
    const doc = yaml.load(readFileSync(result.file, 'utf8')) as {
      environments: Record<string, Record<string, unknown>>;
    };
    const acc = doc.environments.acc ?? {};
    expect(acc).toMatchObject({
      description: 'demo server',
      ip: '0.0.0.0',
      port: 7601,
      api_path: '/api',
      uri: 'sqlite:///default.sqlite',
      allow_drop_all: false,
      root_user: { username: 'root', email: 'root@example.org', password: 's3cret-pass' },
      logging: { level: 'INFO', use_console: true },
      vpn: { host: 'vpn.example.org', port: 1194, subnet: '10.80.0.0/16' },
    });
    expect(String(acc.jwt_secret_key)).toMatch(/^[0-9a-f]{64}$/);
    expect(doc.environments.prod).toEqual({});
    expect(() => checkServerConfig(result.file, 'acc')).not.toThrow();
  });

  it('writes from flags, refuses a second identical environment, and names the missing flag', async () => {
    const name = uniqueName('flags');
    const opts = { scope: 'user' as const, name, rootEmail: 'a@b.org', port: '7000' };
    const first = await newServerConfig(opts, new Asker(false), dirs.env);
    expect(first.values).toMatchObject({ port: 7000, ip: '0.0.0.0', root_user: { email: 'a@b.org' } });
    await expect(newServerConfig(opts, new Asker(false), dirs.env)).rejects.toThrow(
      /already has an environment 'prod'/,
    );
    await expect(
      newServerConfig({ scope: 'user', name: uniqueName('x') }, new Asker(false), dirs.env),
    ).rejects.toThrow(/--root-email is required/);
    await expect(
      newServerConfig({ ...opts, name: uniqueName('y'), port: '99999' }, new Asker(false), dirs.env),
    ).rejects.toThrow(/--port: expected a port/);
  });

  it('writes no VPN unless an address for it is given, and checks its subnet', async () => {
    const base = { scope: 'user' as const, rootEmail: 'a@b.org' };
    const plain = await newServerConfig({ ...base, name: uniqueName('novpn') }, new Asker(false), dirs.env);
    expect(plain.values).not.toHaveProperty('vpn');
    const withVpn = await newServerConfig(
      { ...base, name: uniqueName('vpn'), vpnHost: '203.0.113.7', vpnPort: '1195' },
      new Asker(false),
      dirs.env,
    );
    expect(withVpn.values.vpn).toEqual({ host: '203.0.113.7', port: 1195, subnet: '10.76.0.0/16' });
    expect(() => checkServerConfig(withVpn.file, 'prod')).not.toThrow();
    await expect(
      newServerConfig(
        { ...base, name: uniqueName('badvpn'), vpnHost: 'x', vpnSubnet: '10.76/16' },
        new Asker(false),
        dirs.env,
      ),
    ).rejects.toThrow(/--vpn-subnet: expected a subnet/);
  });
});
