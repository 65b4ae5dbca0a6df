import { describe, expect, it } from 'vitest';
import { dataVolumeName, isTmpVolumeOf, networkName, tmpVolumeName, vpnClientName } from './docker-naming.js';

const lab = { prefix: 'federa', node: 'lab' };

describe('the names of a node’s Docker objects', () => {
  it('are <prefix>-<node>-…', () => {
    expect(networkName(lab)).toBe('federa-lab-net');
    expect(dataVolumeName(lab)).toBe('federa-lab-vol');
    expect(tmpVolumeName(lab, 12)).toBe('federa-lab-12-tmpvol');
    expect(vpnClientName(lab)).toBe('federa-lab-vpn-client');
  });

  it('tell a node’s run volumes from those of a node whose name starts the same', () => {
    expect(isTmpVolumeOf(tmpVolumeName(lab, 12), lab)).toBe(true);
    expect(isTmpVolumeOf(tmpVolumeName({ prefix: 'federa', node: 'lab-2' }, 12), lab)).toBe(false);
    expect(isTmpVolumeOf(dataVolumeName(lab), lab)).toBe(false);
    expect(isTmpVolumeOf(tmpVolumeName(lab, 12), { prefix: 'other', node: 'lab' })).toBe(false);
  });
});
