/**
 * @federa/testing/hooks: the fixtures a test file takes for all its tests, started and closed by vitest's hooks.
 * Apart from the main entry, which also serves the benchmarks (they run outside vitest).
 */
export { useSocketApp } from './socket-app.js';
export { useV4World } from './v4-world.js';
