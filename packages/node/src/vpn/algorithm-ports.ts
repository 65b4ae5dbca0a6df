/** The ports of an algorithm image that the VPN forwards (docs/vpn.md, "For algorithm authors"). */

/** The port forwarded when an image declares none (as vantage6 3.x). */
export const DEFAULT_ALGORITHM_PORT = 8888;

export interface AlgorithmPort {
  readonly port: number;
  readonly label: string | null;
}

/** Ports an image declares: `EXPOSE`d TCP ports, with the label `p<port>` as their label; none → the default. */
export function declaredPorts(
  exposed: readonly string[],
  labels: Readonly<Record<string, string>>,
): AlgorithmPort[] {
  const ports = exposed
    .map((p) => /^(\d+)(?:\/(tcp|udp))?$/.exec(p))
    .filter((m): m is RegExpExecArray => m !== null && (m[2] ?? 'tcp') === 'tcp')
    .map((m) => Number(m[1]))
    .filter((p) => p > 0 && p < 65536);
  const unique = [...new Set(ports)];
  if (unique.length === 0)
    return [{ port: DEFAULT_ALGORITHM_PORT, label: labels[`p${DEFAULT_ALGORITHM_PORT}`] ?? null }];
  return unique.map((port) => ({ port, label: labels[`p${port}`] ?? null }));
}
