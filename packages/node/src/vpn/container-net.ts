/** Network facts and commands inside a container, through the runtime's exec (the VPN's links and forwards). */
import { ipv4InSubnet } from '@federa/common';

import type { ContainerRuntime } from '../runtime/index.js';

/** Runs `cmd` in `container`; throws, quoting the command and its output, when it exits non-zero. */
export async function execOrThrow(
  runtime: ContainerRuntime,
  container: string,
  cmd: readonly string[],
): Promise<{ output: string }> {
  const r = await runtime.exec(container, cmd);
  if (r.exitCode !== 0)
    throw new Error(
      `'${cmd.slice(0, 4).join(' ')}…' failed in ${container} (${r.exitCode}): ${r.output.trim()}`,
    );
  return r;
}

/** The container's IPv4 address in `subnet`, if it has one. */
export async function addressIn(
  runtime: ContainerRuntime,
  container: string,
  subnet: string,
): Promise<string | undefined> {
  const r = await execOrThrow(runtime, container, ['ip', '-4', '-o', 'addr']);
  const addresses = [...r.output.matchAll(/inet (\d+\.\d+\.\d+\.\d+)\//g)].map((m) => m[1] as string);
  return addresses.find((a) => ipv4InSubnet(a, subnet));
}

/** The name of the container's interface that holds `address`. */
export async function interfaceWith(
  runtime: ContainerRuntime,
  container: string,
  address: string,
): Promise<string> {
  const r = await execOrThrow(runtime, container, ['ip', '-4', '-o', 'addr']);
  const line = r.output.split('\n').find((l) => l.includes(`inet ${address}/`));
  const name = line?.split(/\s+/)[1]?.replace(/@.*$/, '');
  if (!name) throw new Error(`no interface with ${address} in ${container}`);
  return name;
}

/** The container's address on its tunnel `tun0`, when the tunnel is up. */
export async function tunnelAddress(
  runtime: ContainerRuntime,
  container: string,
): Promise<string | undefined> {
  const r = await runtime
    .exec(container, ['ip', '-4', '-o', 'addr', 'show', 'dev', 'tun0'])
    .catch(() => undefined);
  return r && r.exitCode === 0 ? /inet (\d+\.\d+\.\d+\.\d+)\//.exec(r.output)?.[1] : undefined;
}
