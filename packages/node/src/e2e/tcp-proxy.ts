/**
 * A TCP proxy between a node and the server, for fault-injection tests: `cut()` resets every open connection and
 * every new one until `restore()`; `answer(status)` resets the open connections and answers every new HTTP request
 * with that status (a server in trouble) until `restore()`. The shared database server is never touched: only this
 * link is cut.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** How many requests were answered with the injected status so far. */
  readonly injected: number;
  /** Resets every connection through the proxy, and every new one until restore(). */
  cut(): void;
  /** Resets every connection, then answers every request with `status` until restore(). */
  answer(status: number): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(
  target: { host: string; port: number },
  listen = '0.0.0.0',
): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let cut = false;
  let status: number | undefined;
  let injected = 0;
  const server: Server = createServer((client) => {
    if (cut) {
      client.resetAndDestroy();
      return;
    }
    if (status !== undefined) {
      const code = status;
      client.on('error', () => undefined);
      client.once('data', () => {
        injected++;
        const body = JSON.stringify({ msg: 'injected fault', code: 'internal' });
        client.end(
          `HTTP/1.1 ${code} Injected\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
        );
      });
      return;
    }
    const upstream = createConnection(target);
    open.add(client);
    open.add(upstream);
    const drop = (): void => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, listen, resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    port: address.port,
    get injected() {
      return injected;
    },
    cut() {
      cut = true;
      for (const s of open) s.resetAndDestroy();
      open.clear();
    },
    answer(code: number) {
      status = code;
      for (const s of open) s.resetAndDestroy();
      open.clear();
    },
    restore() {
      cut = false;
      status = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
