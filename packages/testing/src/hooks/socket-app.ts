import { afterAll, afterEach, beforeAll } from 'vitest';
import { startSocketApp, type SocketApp } from '../socket-harness.js';
import type { TestApp, TestAppOptions } from '../test-app.js';

/**
 * Gives the file's (or the describe block's) tests one {@link SocketApp}: started before them and handed to `use`
 * with its test app, its clients disconnected after each test, closed after them all.
 */
export function useSocketApp(
  use: (started: { s: SocketApp; t: TestApp }) => void,
  options: Omit<TestAppOptions, 'events'> = {},
): void {
  let app: SocketApp | undefined;
  beforeAll(async () => {
    app = await startSocketApp(options);
    use({ s: app, t: app.t });
  });
  afterEach(() => app?.disconnectAll());
  afterAll(() => app?.close());
}
