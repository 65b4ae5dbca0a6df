/**
 * `vserver start` with a `vpn` section, against the real Docker engine: the server container shares its VPN
 * folder with a federa/vpn-server container that runs OpenVPN (docs/vpn.md); `vserver stop` stops both.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  docker,
  dockerQuiet,
  freePort,
  freeUdpPort,
  requireDocker,
  requireImage,
  runCli,
  tempXdg,
  uniqueName,
  useXdg,
  infraImage,
} from '@federa/testing';
import { buildServerProgram } from './program.js';

const dirs = tempXdg();
useXdg(dirs);
const name = uniqueName('vv');
const container = `federa-${name}-user-server`;
const vpnContainer = `${container}-vpn`;
const vserver = (...args: string[]) => runCli(buildServerProgram, args);

/** The configuration file `vserver new` wrote. */
function configFile(dir: string): string {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name === `${name}.yaml`) return join(entry.parentPath, entry.name);
  }
  throw new Error(`no ${name}.yaml under ${dir}`);
}

beforeAll(() => {
  requireDocker();
  requireImage(infraImage('server'));
  requireImage('federa/vpn-server:local');
});

afterAll(() => {
  dockerQuiet('rm', '-f', container, vpnContainer);
  dockerQuiet('network', 'rm', `federa-${name}-user-network`);
  dirs.cleanup();
});

describe('vserver with a VPN', () => {
  it('start runs the VPN server beside the server; stop stops both', async () => {
    const port = await freePort();
    const vpnPort = await freeUdpPort();
    const made = await vserver(
      'new',
      '--user',
      '-n',
      name,
      '--port',
      String(port),
      '--root-email',
      'root@example.org',
      '--root-password',
      'Root-Password-1!',
      '--yes',
    );
    expect(made.code, made.stderr).toBe(0);
    const file = configFile(dirs.env.XDG_CONFIG_HOME);
    const config = yaml.load(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
    const env = (config.environments as Record<string, Record<string, unknown>>).prod!;
    env.vpn = { host: '127.0.0.1', port: vpnPort, subnet: '10.242.0.0/16' };
    writeFileSync(file, yaml.dump(config));

    const started = await vserver(
      'start',
      '--image',
      infraImage('server'),
      '--user',
      '-n',
      name,
      '--wait',
      '120',
    );
    expect(started.code, started.stderr).toBe(0);
    expect(started.stderr + started.stdout).toContain(`VPN server runs in container ${vpnContainer}`);
    // The server made the authority in the shared folder; OpenVPN in its container brought the tunnel up.
    const vpnDir = join(dirs.env.XDG_DATA_HOME, 'federa', 'server', name, 'vpn');
    expect(existsSync(join(vpnDir, 'ca.crt'))).toBe(true);
    let tun = '';
    for (let i = 0; i < 60 && !tun.includes('10.242.0.1/16'); i++) {
      tun = (() => {
        try {
          return docker('exec', vpnContainer, 'ip', '-4', '-o', 'addr', 'show', 'dev', 'tun0');
        } catch {
          return '';
        }
      })();
      if (!tun.includes('10.242.0.1/16')) await new Promise((r) => setTimeout(r, 500));
    }
    expect(tun).toContain('10.242.0.1/16');
    const ports = docker('inspect', '--format', '{{json .HostConfig.PortBindings}}', vpnContainer);
    expect(JSON.parse(ports)).toHaveProperty(`${vpnPort}/udp`);

    const stopped = await vserver('stop', '--user', '-n', name);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(() => docker('inspect', vpnContainer)).toThrow();
  }, 240_000);
});
