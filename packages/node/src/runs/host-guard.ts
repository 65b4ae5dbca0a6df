/**
 * Closes the one gap of Docker's internal networks for a node on the host: containers on an `--internal` network
 * cannot leave the machine, but they can still reach every service of the host itself (packets to any local
 * address arrive on the host's INPUT chain; docs/docker.md#4-networking-what-was-checked-on-this-machine-tests-in-docker-runtimetestts). The guard drops everything that enters the host
 * from the network's bridge except TCP to the proxy (gateway:port).
 *
 * Needs root and iptables; without them the node warns and goes on (the proxy still works; host services that
 * listen on all addresses are then reachable from algorithms).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface HostGuard {
  readonly active: boolean;
  readonly reason?: string;
  remove(): Promise<void>;
}

const bridgeOf = (networkId: string): string => `br-${networkId.slice(0, 12)}`;

async function iptables(args: string[]): Promise<string> {
  const { stdout } = await run('iptables', ['-w', '5', ...args], { timeout: 15_000 });
  return stdout;
}

async function removeTagged(tag: string): Promise<void> {
  const rules = (await iptables(['-S', 'INPUT']))
    .split('\n')
    .filter((l) => l.includes(`--comment ${tag}`) || l.includes(`--comment "${tag}"`));
  for (const rule of rules) {
    const spec =
      rule
        .replace(/^-A INPUT /, '')
        .match(/(?:[^\s"]+|"[^"]*")+/g)
        ?.map((s) => s.replace(/^"|"$/g, '')) ?? [];
    await iptables(['-D', 'INPUT', ...spec]).catch(() => undefined);
  }
}

/** Removes the rules a node left behind (a node killed with SIGKILL could not remove them itself). */
export const removeHostGuard = (tag: string): Promise<void> => removeTagged(tag).catch(() => undefined);

export async function installHostGuard(options: {
  networkId: string;
  gateway: string;
  proxyPort: number;
  tag: string;
}): Promise<HostGuard> {
  const { networkId, gateway, proxyPort, tag } = options;
  const bridge = bridgeOf(networkId);
  try {
    await removeTagged(tag);
    await iptables(['-I', 'INPUT', '-i', bridge, '-m', 'comment', '--comment', tag, '-j', 'DROP']);
    await iptables([
      '-I',
      'INPUT',
      '-i',
      bridge,
      '-p',
      'tcp',
      '-d',
      gateway,
      '--dport',
      String(proxyPort),
      '-m',
      'comment',
      '--comment',
      tag,
      '-j',
      'ACCEPT',
    ]);
  } catch (error) {
    return {
      active: false,
      reason: (error as Error).message.split('\n')[0] ?? String(error),
      remove: async () => undefined,
    };
  }
  return { active: true, remove: () => removeTagged(tag).catch(() => undefined) };
}
