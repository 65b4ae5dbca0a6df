import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { loadNodeConfig, startNode, type ContainerRuntime, type RunningNode } from '@federa/node';
import type { E2eServer } from './e2e-server.js';

export interface StartedNode {
  readonly node: RunningNode;
  readonly name: string;
  readonly dataDir: string;
  readonly configFile: string;
}

/** Writes a node configuration file for `org` and starts the node in-process. */
export async function startE2eNode(
  s: E2eServer,
  org: { apiKey: string; csv: string },
  name: string,
  encrypted: boolean,
  extra = '',
  log: Logger = pino({ level: process.env.FEDERA_TEST_LOG ?? 'silent' }),
  /** Reuse this configuration file (and so the data dir) instead of writing a new one. */
  existingConfigFile?: string,
  /** The container runtime (default: Docker); a test wraps it to inject a fault. */
  runtime?: ContainerRuntime,
): Promise<StartedNode> {
  const dir = s.tempDir(`federa-node-${name}-`);
  const configFile = existingConfigFile ?? join(dir, `${name}.yaml`);
  if (!existingConfigFile)
    writeFileSync(
      configFile,
      `application:
  api_key: ${org.apiKey}
  server_url: http://127.0.0.1
  port: ${s.port}
  api_path: /api
  databases:
    - {label: default, uri: ${org.csv}, type: csv}
  encryption: {enabled: ${encrypted}}
  directories: {data: ${join(dir, 'data')}, log: ${join(dir, 'log')}}
  proxy_port: 0
${extra}`,
    );
  const config = loadNodeConfig({ file: configFile, env: {} });
  const node = await startNode({
    config,
    log,
    keyGeneration: { modulusBits: 2048 },
    connectTimeoutMs: 15_000,
    ...(runtime ? { runtime } : {}),
  });
  return { node, name, dataDir: config.dataDir, configFile };
}
