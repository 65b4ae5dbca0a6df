/**
 * The proxy's port when the configuration lets the system choose it (`proxy_port: 0`): the port chosen at the first
 * start is kept in the data folder and asked for again at the next one, because the containers that outlive a
 * restart of the node were given that address and keep calling it.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const FILE = 'proxy-port';

/** The port to listen on: the configured one, or (for 0) the one of the last start, if any. */
export async function proxyPortToUse(configured: number, dataDir: string): Promise<number> {
  if (configured !== 0) return configured;
  try {
    const text = (await readFile(join(dataDir, FILE), 'utf8')).trim();
    const port = Number(text);
    return /^\d+$/.test(text) && port > 0 && port < 65536 ? port : 0;
  } catch {
    return 0;
  }
}

/** Keeps the port the system chose, for the next start. */
export async function keepProxyPort(configured: number, dataDir: string, port: number): Promise<void> {
  if (configured !== 0) return;
  await mkdir(dataDir, { recursive: true });
  await writeFile(join(dataDir, FILE), `${port}\n`);
}
