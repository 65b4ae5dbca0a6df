import { afterAll, beforeAll } from 'vitest';
import { startV4World, type V4CallerOptions, type V4World } from '../v4-world.js';
import type { TestAppOptions } from '../test-app.js';

/**
 * Gives the file's tests one {@link V4World}: started before them (handed to `use`), closed after them. Hooks the
 * file registers after this run after the world is made.
 */
export function useV4World(
  use: (world: V4World) => void,
  options: { app?: TestAppOptions; caller?: V4CallerOptions } = {},
): void {
  let world: V4World | undefined;
  beforeAll(async () => {
    world = await startV4World(options);
    use(world);
  });
  afterAll(() => world?.t.close());
}
