import type { RunTraces } from '../tracing/run-traces.js';
import type { StoreLookup } from './store-policy.js';
/**
 * What the node gives its run manager: the node's identity, the services a run uses (runtime, server, encryption),
 * and where runs live (data volume, private network, proxy).
 */
import type { Logger } from 'pino';
import type { Cryptor } from '@federa/common';

import type { NodeConfig } from '../config/node-config.js';
import type { ContainerRuntime } from '../runtime/index.js';
import type { RestClient } from '../server-client/rest-client.js';
import type { AlgorithmStatusChange } from '../server-client/socket-channel.js';
import type { NodeVpn } from '../vpn/node-vpn.js';
import type { NodeAudit } from '../audit/node-audit.js';
import type { DeclarationSource } from '../output/declaration-source.js';
import type { NodeNames } from './naming.js';
import type { NetworkHelpers } from './network-helpers.js';
import type { RunStore } from './run-store.js';
import type { OrganizationPins } from './organization-pins.js';
import type { LogBatchSender } from './live-log.js';

export interface NodeIdentity {
  readonly nodeId: number;
  readonly organizationId: number;
  readonly collaborationId: number;
}

export interface RunManagerOptions {
  readonly runtime: ContainerRuntime;
  readonly rest: RestClient;
  readonly cryptor: Cryptor;
  readonly config: NodeConfig;
  readonly names: NodeNames;
  readonly identity: NodeIdentity;
  /** Host directory behind the data volume. */
  readonly volumeDir: string;
  readonly dataVolume: string;
  readonly network: string;
  /** Host part of HOST for algorithms, and `/etc/hosts` entries that make it resolve. */
  readonly proxyHost: string;
  readonly proxyPort: number;
  readonly extraHosts: readonly string[];
  readonly store: RunStore;
  /** The organizations `allowed_organizations` names, pinned at the node's start (organization-pins.ts). */
  readonly organizations: OrganizationPins;
  readonly log: Logger;
  /** How the node asks an algorithm store about an image (docs/store.md); default: over HTTP. */
  readonly storeLookup?: StoreLookup;
  readonly emitStatus: (change: AlgorithmStatusChange) => void;
  /** The runs' spans (docs/observability.md#traces); absent: none. */
  readonly traces?: RunTraces;
  /**
   * Sends a batch of an active run's log to the server (docs/run-logs.md); with `share_logs: false` it is not used.
   * @default none: the log reaches the server only with the final report
   */
  readonly sendLog?: LogBatchSender;
  readonly signal: AbortSignal;
  /**
   * Network helpers started ahead of time (see network-helpers.ts).
   * @default none: algorithms join the network themselves
   */
  readonly helpers?: NetworkHelpers;
  /**
   * The VPN between algorithms, when the node is connected to one (docs/vpn.md).
   * @default null: no VPN
   */
  readonly vpn?: NodeVpn | null;
  /**
   * The node's audit log (docs/audit.md): every run's start and outcome.
   * @default none: nothing is recorded (tests of other parts)
   */
  readonly audit?: NodeAudit;
  /**
   * Declared outputs from beyond the node's configuration (the algorithm store's function descriptions;
   * docs/output-control.md#declared-outputs).
   * @default none: only `policies.output.declarations`
   */
  readonly declarations?: DeclarationSource;
}
