/** IPv4 helpers for the VPN (docs/vpn.md). */

const toNumber = (address: string): number | undefined => {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
  return parts.reduce((acc, p) => acc * 256 + p, 0);
};

/** `a.b.c.d/n` → network number and mask; throws an Error naming the value when it is not one. */
export function parseCidr(cidr: string): { network: number; mask: number } {
  const [address, bits] = cidr.split('/');
  const base = address === undefined ? undefined : toNumber(address);
  const prefix = Number(bits);
  if (base === undefined || !Number.isInteger(prefix) || prefix < 1 || prefix > 32)
    throw new Error(`vpn_subnet: expected an IPv4 subnet like 10.76.0.0/16, got "${cidr}"`);
  const mask = (0xffffffff << (32 - prefix)) >>> 0;
  return { network: (base & mask) >>> 0, mask };
}

/** Whether `address` lies in the subnet `cidr`. */
export function addressIn(address: string, cidr: string): boolean {
  const n = toNumber(address);
  if (n === undefined) return false;
  const { network, mask } = parseCidr(cidr);
  return (n & mask) >>> 0 === network;
}

/** The first host address of a subnet: the VPN server's own address. */
export function firstAddress(cidr: string): string {
  const n = parseCidr(cidr).network + 1;
  return [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');
}
