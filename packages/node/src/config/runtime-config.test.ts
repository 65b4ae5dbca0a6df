import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { loadNodeConfig } from './node-config.js';

const dir = mkdtempSync(join(tmpdir(), 'federa-runtime-config-'));
const base = `application:
  api_key: key-1
  server_url: http://localhost
`;

function load(name: string, extra: string) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, base + extra);
  return () => loadNodeConfig({ file, env: {} });
}

describe('container_runtime', () => {
  it('is Docker unless the configuration names Podman, whose socket may be given', () => {
    expect(load('default', '')().runtime).toEqual({ kind: 'docker', socketPath: undefined });
    expect(load('podman', '  container_runtime: podman\n')().runtime).toEqual({
      kind: 'podman',
      socketPath: undefined,
    });
    expect(
      load('sock', '  container_runtime: podman\n  podman_socket: /run/user/1000/podman/podman.sock\n')()
        .runtime,
    ).toEqual({ kind: 'podman', socketPath: '/run/user/1000/podman/podman.sock' });
  });

  it('refuses an unknown runtime, a relative socket, and a socket without Podman', () => {
    expect(load('unknown', '  container_runtime: containerd\n')).toThrow(/container_runtime/);
    expect(load('relative', '  container_runtime: podman\n  podman_socket: podman.sock\n')).toThrow(
      /podman_socket/,
    );
    expect(load('docker-sock', '  podman_socket: /run/podman/podman.sock\n')).toThrow(
      /key 'podman_socket': podman_socket is set but container_runtime is not 'podman'/,
    );
  });

  it('names and refuses a Docker-only option in a Podman configuration', () => {
    const gpu = '  algorithm_device_requests: {gpu: true}\n';
    expect(load('gpu-docker', gpu)().gpu).toBe(true);
    expect(load('gpu-podman', `  container_runtime: podman\n${gpu}`)).toThrow(
      /key 'algorithm_device_requests.gpu': algorithm_device_requests.gpu works only with container_runtime: docker/,
    );
    const vpn = '  vpn_subnet: 10.76.0.0/16\n';
    expect(load('vpn-docker', vpn)().vpnSubnet).toBe('10.76.0.0/16');
    expect(load('vpn-podman', `  container_runtime: podman\n${vpn}`)).toThrow(
      /key 'vpn_subnet': vpn_subnet works only with container_runtime: docker \(the VPN between algorithms has not been run whole on rootless Podman/,
    );
  });
});
