/**
 * IPv4 subnets in CIDR notation, as the VPN uses them (docs/vpn.md): the server's `vpn.subnet`, a node's
 * `vpn_subnet`, and the addresses of containers on a node's networks.
 */
export interface Ipv4Subnet {
  /** Network address, dotted (host bits cleared). */
  readonly network: string;
  /** Netmask, dotted. */
  readonly netmask: string;
  readonly prefix: number;
  /** The first host address (the VPN server's own). */
  readonly firstHost: string;
}

const CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

const toNumber = (address: string): number | undefined => {
  const parts = address.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((acc, p) => acc * 256 + Number(p), 0);
};

const toDotted = (n: number): string => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');

const maskOf = (prefix: number): number => (0xffffffff << (32 - prefix)) >>> 0;

/**
 * Parses `a.b.c.d/n` (prefix /8 to /29: a VPN needs room for hosts); throws an Error saying what is wrong, for
 * the caller to prefix with the key it came from.
 */
export function parseIpv4Subnet(cidr: string): Ipv4Subnet {
  const m = CIDR.exec(cidr.trim());
  const base = m ? toNumber(m.slice(1, 5).join('.')) : undefined;
  if (!m || base === undefined) throw new Error(`expected an IPv4 subnet like 10.76.0.0/16, got "${cidr}"`);
  const prefix = Number(m[5]);
  if (prefix < 8 || prefix > 29) throw new Error(`"${cidr}": the prefix must be between /8 and /29`);
  const network = (base & maskOf(prefix)) >>> 0;
  return {
    network: toDotted(network),
    netmask: toDotted(maskOf(prefix)),
    prefix,
    firstHost: toDotted(network + 1),
  };
}

/** Whether `address` (dotted IPv4) lies in the subnet `cidr`. */
export function ipv4InSubnet(address: string, cidr: string): boolean {
  const n = toNumber(address);
  const m = CIDR.exec(cidr.trim());
  const base = m ? toNumber(m.slice(1, 5).join('.')) : undefined;
  if (n === undefined || !m || base === undefined) return false;
  const mask = maskOf(Number(m[5]));
  return (n & mask) >>> 0 === (base & mask) >>> 0;
}
