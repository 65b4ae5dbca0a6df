import type { Logger } from 'pino';
import type { GenerateKeyOptions } from '@federa/common';
import type { Tracing } from '@federa/common/tracing';
import type { NodeConfig } from './config/node-config.js';
import type { RunManager } from './runs/run-manager.js';
import type { ContainerRuntime } from './runtime/index.js';

/** How the node daemon (node.ts) is started, and what a started node offers. */

export interface StartNodeOptions {
  readonly config: NodeConfig;
  /**
   * The node's logger.
   * @default createNodeLogger(config): the configured level, console and log file
   */
  readonly log?: Logger;
  /**
   * The container runtime.
   * @default createContainerRuntime() with the configured registries: Docker on DOCKER_HOST or /var/run/docker.sock
   */
  readonly runtime?: ContainerRuntime;
  /**
   * Key size when the node must generate its private key (tests use 2048).
   * @default { modulusBits: 4096 }
   */
  readonly keyGeneration?: GenerateKeyOptions;
  /**
   * Time limit for the first socket connection, in milliseconds (then start fails).
   * @default 60000
   */
  readonly connectTimeoutMs?: number;
  /** Aborting it stops a start in progress (SIGINT while waiting for the server). */
  readonly signal?: AbortSignal;
  /**
   * Process environment (finding its own container when dockerized).
   * @default process.env
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Tracing to use instead of the one the `tracing` key makes (tests give one with an in-memory exporter). */
  readonly tracing?: Tracing;
}

export interface RunningNode {
  readonly nodeId: number;
  readonly organizationId: number;
  readonly collaborationId: number;
  readonly proxy: { readonly host: string; readonly port: number };
  /** Where Prometheus scrapes the node; null without `metrics` in the configuration. */
  readonly metricsUrl: string | null;
  readonly runs: RunManager;
  /** Fetches open work now (what every reconnect does). */
  sync(): Promise<void>;
  /** Graceful stop: disconnect the socket, close the proxy. Running containers are left running (reattached at the next start). */
  stop(): Promise<void>;
}
