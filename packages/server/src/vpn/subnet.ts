/** An IPv4 subnet in CIDR notation, e.g. `10.76.0.0/16`. */
export interface Subnet {
  network: string;
  netmask: string;
  prefix: number;
}

const CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

/** Parses `a.b.c.d/n`; throws an Error naming what is wrong. The network address is normalized. */
export function parseSubnet(cidr: string): Subnet {
  const m = CIDR.exec(cidr.trim());
  if (!m) throw new Error(`expected an IPv4 subnet like 10.76.0.0/16, got "${cidr}"`);
  const octets = m.slice(1, 5).map(Number);
  const prefix = Number(m[5]);
  if (octets.some((o) => o > 255)) throw new Error(`"${cidr}" has an octet above 255`);
  if (prefix < 8 || prefix > 29) throw new Error(`"${cidr}": the prefix must be between /8 and /29`);
  const address = octets.reduce((acc, o) => acc * 256 + o, 0);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  const network = (address & mask) >>> 0;
  return { network: toDotted(network), netmask: toDotted(mask), prefix };
}

const toDotted = (n: number): string => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');
