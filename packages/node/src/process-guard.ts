/**
 * The node process outlives a fault in one run (docs/security.md, "The node survives any task"): an error that
 * escapes every handler (an unhandled rejection, an exception thrown from a callback of a library) is logged as
 * `node.uncaught` and the node goes on serving. Each run's own failures are reported by the run manager; this is the
 * last line, for what no code path expected.
 */
import type { Logger } from 'pino';

/** Installs the handlers; returns a function that removes them. */
export function installProcessGuard(log: Logger, proc: NodeJS.Process = process): () => void {
  const onRejection = (reason: unknown): void => {
    log.error(
      { event: 'node.uncaught', kind: 'unhandledRejection', err: describe(reason) },
      'an error escaped its handler; the node goes on',
    );
  };
  const onException = (error: Error): void => {
    log.error(
      { event: 'node.uncaught', kind: 'uncaughtException', err: describe(error) },
      'an error escaped its handler; the node goes on',
    );
  };
  proc.on('unhandledRejection', onRejection);
  proc.on('uncaughtException', onException);
  return () => {
    proc.off('unhandledRejection', onRejection);
    proc.off('uncaughtException', onException);
  };
}

const describe = (e: unknown): string =>
  e instanceof Error ? `${e.name}: ${e.message}${e.stack ? `\n${e.stack}` : ''}` : String(e);
