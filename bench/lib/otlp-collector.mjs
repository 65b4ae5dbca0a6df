// A tracing collector for the benchmarks: otlp-receiver.mjs in a process of its own, so that the server's side of
// tracing is measured against a receiver that keeps up, and the receiver's work is not counted as the server's.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Starts the receiver: `endpoint` is its traces URL, `spans()` how many it has received, `stop()` ends it. */
export async function startCollector() {
  const child = fork(fileURLToPath(new URL('./otlp-receiver.mjs', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { port } = await new Promise((resolve) => child.once('message', resolve));
  return {
    endpoint: `http://127.0.0.1:${port}/v1/traces`,
    spans: () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve(m.spans));
        child.send('count');
      }),
    stop: () => child.kill(),
  };
}
