/**
 * Encryption at start (docs/node-protocol.md#encryption-at-start): the node's mode must equal the collaboration's; in encrypted mode the
 * private key is loaded (or generated and kept) and the organization's public key on the server is made to match.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import {
  createCryptor,
  createPrivateKeyFile,
  publicKeyBase64,
  publicKeyMatches,
  readPrivateKeyFile,
  type Cryptor,
  type GenerateKeyOptions,
} from '@federa/common';

import { StartupError } from './errors.js';
import type { RestClient } from './server-client/rest-client.js';
import type { WireCollaboration, WireOrganization } from './server-client/wire.js';

export interface EncryptionSetupInput {
  readonly rest: RestClient;
  readonly log: Logger;
  readonly collaborationId: number;
  readonly organizationId: number;
  readonly enabled: boolean;
  readonly privateKeyPath: string;
  /**
   * Key size for a generated key (tests use 2048).
   * @default { modulusBits: 4096 }
   */
  readonly generate?: GenerateKeyOptions;
  readonly configFile: string;
}

export async function setUpEncryption(input: EncryptionSetupInput): Promise<Cryptor> {
  const { rest, log } = input;
  const collab = await rest.get<WireCollaboration>(`/collaboration/${input.collaborationId}`);
  // The server answers a boolean; 1 is still read as true, as before the wire types were shared.
  const encrypted = collab.encrypted === true || (collab.encrypted as unknown) === 1;
  if (encrypted !== input.enabled) {
    throw new StartupError(
      `the collaboration '${collab.name}' (id ${collab.id}) is ${encrypted ? 'encrypted' : 'not encrypted'}, but ${input.configFile} ` +
        `sets encryption.enabled: ${String(input.enabled)}; set it to ${String(encrypted)} to start this node`,
    );
  }
  if (!encrypted) {
    log.info(
      { event: 'encryption', encrypted: false },
      'the collaboration is not encrypted: payloads travel as base64',
    );
    return createCryptor({ encrypted: false });
  }

  let key;
  if (existsSync(input.privateKeyPath)) {
    try {
      key = await readPrivateKeyFile(input.privateKeyPath);
    } catch (cause) {
      throw new StartupError(`cannot use the private key: ${(cause as Error).message}`, { cause });
    }
    log.info({ event: 'encryption.key_loaded', path: input.privateKeyPath }, 'private key loaded');
  } else {
    await mkdir(dirname(input.privateKeyPath), { recursive: true });
    log.warn(
      { event: 'encryption.key_generated', path: input.privateKeyPath },
      'no private key found: generating one (keep it; every node of this organization must use the same key)',
    );
    key = await createPrivateKeyFile(input.privateKeyPath, input.generate ?? {});
  }

  const org = await rest.get<WireOrganization>(`/organization/${input.organizationId}`);
  if (!publicKeyMatches(org.public_key, key)) {
    if (org.public_key) {
      log.fatal(
        { event: 'encryption.key_mismatch', organization_id: org.id },
        "the public key of this organization on the server does not match the private key of this node: uploading this node's key (data encrypted for the old key can no longer be read)",
      );
    } else {
      log.info(
        { event: 'encryption.key_upload', organization_id: org.id },
        'the organization has no public key yet: uploading it',
      );
    }
    await rest.patch(`/organization/${org.id}`, { public_key: publicKeyBase64(key) });
  } else {
    log.info(
      { event: 'encryption.key_matches', organization_id: org.id },
      "the server holds this node's public key",
    );
  }
  return createCryptor({ encrypted: true, privateKey: key });
}
