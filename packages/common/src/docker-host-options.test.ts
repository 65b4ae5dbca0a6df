import { describe, expect, it } from 'vitest';

import { dockerHostOptions } from './docker-host-options.js';

describe('dockerHostOptions', () => {
  it('maps hosts, capabilities and devices to the Engine API fields; a device keeps its path inside', () => {
    expect(
      dockerHostOptions({
        extraHosts: ['host.docker.internal:host-gateway'],
        capAdd: ['NET_ADMIN'],
        devices: ['/dev/net/tun'],
      }),
    ).toEqual({
      ExtraHosts: ['host.docker.internal:host-gateway'],
      CapAdd: ['NET_ADMIN'],
      Devices: [{ PathOnHost: '/dev/net/tun', PathInContainer: '/dev/net/tun', CgroupPermissions: 'rwm' }],
    });
  });

  it('leaves out what the spec does not set', () => {
    expect(dockerHostOptions({})).toEqual({});
    expect(Object.keys(dockerHostOptions({ capAdd: [] }))).toEqual(['CapAdd']);
  });
});
