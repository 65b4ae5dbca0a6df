import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { CertificateAuthority, writeAtomically } from './certificate-authority.js';
import { clientConfig, serverConfig, type OpenVpnEndpoint } from './openvpn-config.js';
import { ApiError } from '../errors.js';
import { IssueLimit } from './issue-limit.js';
import { OpenVpnProcess, managementCommand } from './openvpn-process.js';
import { parseIpv4Subnet, type Ipv4Subnet } from '@federa/common';

/** The `vpn` section of the server configuration (docs/server-configuration.md, docs/vpn.md). */
export interface VpnSettings {
  host: string;
  port: number;
  proto: 'udp' | 'tcp';
  subnet: string;
  certificate_days: number;
  directory?: string | undefined;
  run_server: boolean;
}

export interface IssuedConfig {
  ovpn_config: string;
  not_after: Date;
}

interface IssuedRecord {
  serial: string;
  not_after: string;
}

/**
 * Federa's VPN (docs/vpn.md): its certificate authority, the per-node client configurations it issues, the
 * revocation of a deleted node's certificates, and (local mode) the OpenVPN server process itself.
 * The issued serials are kept in `issued.json` in the VPN folder, beside the authority.
 */
export class VpnService {
  readonly subnet: Ipv4Subnet;
  readonly #endpoint: OpenVpnEndpoint;
  readonly #process: OpenVpnProcess | null;
  readonly #limit = new IssueLimit();
  /** How often each node's certificates were revoked: a certificate made across a revocation is revoked too. */
  readonly #revocations = new Map<number, number>();

  private constructor(
    private readonly dir: string,
    private readonly ca: CertificateAuthority,
    private readonly settings: VpnSettings,
    private readonly log: FastifyBaseLogger,
  ) {
    this.subnet = parseIpv4Subnet(settings.subnet);
    this.#endpoint = { host: settings.host, port: settings.port, proto: settings.proto };
    this.#process = settings.run_server ? new OpenVpnProcess(dir, log) : null;
  }

  /** Path of OpenVPN's management socket (also reachable from the `federa/vpn-server` container's volume). */
  get managementSocket(): string {
    return join(this.dir, 'management.sock');
  }

  /**
   * Opens (or creates at the first start) the authority in `dir`, writes the OpenVPN server configuration and,
   * with `run_server`, starts OpenVPN. Throws a readable error when OpenVPN cannot run.
   */
  static async start(settings: VpnSettings, dir: string, log: FastifyBaseLogger): Promise<VpnService> {
    const { ca, created } = await CertificateAuthority.openOrCreate(dir, 'Federa');
    if (created)
      log.info({ event: 'vpn.ca_created', directory: dir }, 'created the VPN certificate authority');
    mkdirSync(join(dir, 'revoked'), { recursive: true, mode: 0o700 });
    const service = new VpnService(dir, ca, settings, log);
    writeFileSync(
      join(dir, 'server.conf'),
      serverConfig({
        endpoint: service.#endpoint,
        subnet: service.subnet,
        managementSocket: 'management.sock',
      }),
    );
    if (service.#process) await service.#process.start();
    log.info(
      {
        event: 'vpn.enabled',
        subnet: settings.subnet,
        endpoint: `${settings.proto}://${settings.host}:${settings.port}`,
        runs_server: settings.run_server,
      },
      'the VPN is enabled',
    );
    return service;
  }

  /** Resolves when the local OpenVPN server is up (at once when another process runs it). */
  async ready(): Promise<void> {
    await this.#process?.ready();
  }

  /**
   * A new client configuration for node `nodeId` with its own certificate (common name `node-<id>`). When the
   * node renews, its older certificates are revoked, except the one it may still be connected with.
   * Throws `IssueRefused` (and makes nothing) when the node is over its limits (`issue-limit.ts`).
   */
  async issue(nodeId: number): Promise<IssuedConfig> {
    const revocations = this.#revocations.get(nodeId) ?? 0;
    const issued = await this.#limit.run(nodeId, () =>
      this.ca.issue(`node-${nodeId}`, this.settings.certificate_days, 'client'),
    );
    if ((this.#revocations.get(nodeId) ?? 0) !== revocations) {
      // The node was deleted or its API key reset while this certificate was being made: the request came with
      // the old key, so its certificate goes with the others.
      this.#revokeSerial(issued.serial);
      throw new ApiError(
        'session_ended',
        "This node's VPN certificates were revoked (the node was deleted or its API key reset) while this one was being made.",
      );
    }
    const all = this.#readIssued();
    const previous = all[nodeId] ?? [];
    for (const old of previous.slice(0, -1)) this.#revokeSerial(old.serial);
    all[nodeId] = [
      ...previous.slice(-1),
      { serial: issued.serial, not_after: issued.notAfter.toISOString() },
    ];
    this.#writeIssued(all);
    this.log.info(
      { event: 'vpn.certificate_issued', node_id: nodeId, not_after: issued.notAfter.toISOString() },
      'issued a VPN certificate',
    );
    return {
      ovpn_config: clientConfig({
        endpoint: this.#endpoint,
        caCertificate: this.ca.caCertificate,
        tlsCryptKey: this.ca.tlsCryptKey,
        issued,
      }),
      not_after: issued.notAfter,
    };
  }

  /**
   * Revokes every certificate of a node (deleted, or its API key reset: whoever held the old key may hold its
   * configurations too) and disconnects it from the VPN at once.
   */
  async revokeNode(nodeId: number, reason: 'deleted' | 'api_key_reset'): Promise<void> {
    this.#revocations.set(nodeId, (this.#revocations.get(nodeId) ?? 0) + 1);
    const all = this.#readIssued();
    const records = all[nodeId] ?? [];
    for (const record of records) this.#revokeSerial(record.serial);
    delete all[nodeId];
    this.#writeIssued(all);
    const answer = await managementCommand(this.managementSocket, `kill node-${nodeId}`);
    this.log.info(
      {
        event: 'vpn.node_revoked',
        node_id: nodeId,
        reason,
        certificates: records.length,
        disconnect: answer,
      },
      'revoked the VPN certificates of a node',
    );
  }

  async close(): Promise<void> {
    await this.#process?.stop();
  }

  #revokeSerial(serial: string): void {
    if (!/^\d+$/.test(serial)) return;
    writeFileSync(join(this.dir, 'revoked', serial), `${new Date().toISOString()}\n`, { mode: 0o600 });
  }

  #readIssued(): Record<number, IssuedRecord[]> {
    const file = join(this.dir, 'issued.json');
    if (!existsSync(file)) return {};
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as Record<number, IssuedRecord[]>;
    } catch {
      this.log.error(
        { event: 'vpn.issued_unreadable', file },
        'the list of issued VPN certificates is unreadable',
      );
      return {};
    }
  }

  #writeIssued(all: Record<number, IssuedRecord[]>): void {
    writeAtomically(join(this.dir, 'issued.json'), `${JSON.stringify(all, null, 2)}\n`, 0o600);
  }
}
