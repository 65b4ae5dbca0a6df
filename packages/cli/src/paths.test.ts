import { describe, expect, it } from 'vitest';
import { configFilePath, defaultLogFileName, instanceDataDir, typeDirs } from './paths.js';

describe('paths', () => {
  it('follows the XDG defaults under HOME for the user scope', () => {
    const env = { HOME: '/home/ada' };
    expect(typeDirs('node', 'user', env)).toEqual({
      config: '/home/ada/.config/federa/node',
      data: '/home/ada/.local/share/federa/node',
      log: '/home/ada/.cache/federa/log/node',
    });
    expect(instanceDataDir('node', 'user', 'lab', env)).toBe('/home/ada/.local/share/federa/node/lab');
    expect(configFilePath('server', 'user', 'demo', env)).toBe('/home/ada/.config/federa/server/demo.yaml');
  });

  it('uses the system folders, or the first of XDG_CONFIG_DIRS / XDG_DATA_DIRS', () => {
    expect(typeDirs('server', 'system', {})).toEqual({
      config: '/etc/xdg/federa/server',
      data: '/usr/local/share/federa/server',
      log: '/usr/local/share/federa/server',
    });
    const env = { XDG_CONFIG_DIRS: '/opt/cfg:/etc/xdg', XDG_DATA_DIRS: ':/opt/data:/usr/share' };
    expect(typeDirs('server', 'system', env).config).toBe('/opt/cfg/federa/server');
    expect(instanceDataDir('server', 'system', 'demo', env)).toBe('/opt/data/federa/server/demo');
  });

  it('honours XDG_CONFIG_HOME, XDG_DATA_HOME and XDG_CACHE_HOME (empty values are ignored)', () => {
    const env = { HOME: '/home/ada', XDG_CONFIG_HOME: '/x/c', XDG_DATA_HOME: '/x/d', XDG_CACHE_HOME: '' };
    expect(typeDirs('node', 'user', env)).toEqual({
      config: '/x/c/federa/node',
      data: '/x/d/federa/node',
      log: '/home/ada/.cache/federa/log/node',
    });
  });

  it('names the default log file after the instance, environment and scope', () => {
    expect(defaultLogFileName('lab', 'application', 'user')).toBe('lab-application-user.log');
  });
});
