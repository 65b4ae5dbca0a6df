import { describe, expect, it } from 'vitest';
import { ipv4InSubnet, parseIpv4Subnet } from './ipv4-subnet.js';

describe('IPv4 subnets', () => {
  it('parse to network, netmask, prefix and first host, host bits cleared', () => {
    expect(parseIpv4Subnet('10.76.3.9/16')).toEqual({
      network: '10.76.0.0',
      netmask: '255.255.0.0',
      prefix: 16,
      firstHost: '10.76.0.1',
    });
  });

  it('refuse what is not a usable subnet, saying why', () => {
    expect(() => parseIpv4Subnet('10.76/16')).toThrow(/expected an IPv4 subnet like 10.76.0.0\/16/);
    expect(() => parseIpv4Subnet('10.300.0.0/16')).toThrow(/expected an IPv4 subnet/);
    expect(() => parseIpv4Subnet('10.76.0.0/31')).toThrow(/between \/8 and \/29/);
  });

  it('tell whether an address lies in a subnet', () => {
    expect(ipv4InSubnet('172.18.0.5', '172.18.0.0/16')).toBe(true);
    expect(ipv4InSubnet('172.19.0.5', '172.18.0.0/16')).toBe(false);
    expect(ipv4InSubnet('not-an-ip', '172.18.0.0/16')).toBe(false);
  });
});
