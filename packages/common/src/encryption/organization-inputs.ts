import type { Cryptor } from './cryptor.js';
import { EncryptionError } from './errors.js';

/** What `publicKeyOf` gives for an organization: its public key (wire form, `''` when none) and its name. */
export interface OrganizationKey {
  readonly publicKey: string;
  readonly name?: string | null;
}

/**
 * The input of a task for each receiving organization, as `POST /task` takes it (docs/encryption.md): encrypted
 * with each organization's public key (read by `publicKeyOf`, one organization after the other) when `cryptor`
 * encrypts, else base64 without asking for any key. Used by the client creating a task and by the node's proxy
 * creating a sub-task.
 * @throws EncryptionError naming the organization whose key is missing or unusable; what `publicKeyOf` throws.
 */
export async function encryptForOrganizations(
  cryptor: Cryptor,
  inputs: readonly { readonly id: number; readonly input: Uint8Array }[],
  publicKeyOf: (organizationId: number) => Promise<OrganizationKey>,
): Promise<{ id: number; input: string }[]> {
  const out: { id: number; input: string }[] = [];
  for (const { id, input } of inputs) {
    if (!cryptor.encrypted) {
      out.push({ id, input: cryptor.encryptBytesToString(input, '') });
      continue;
    }
    const key = await publicKeyOf(id);
    try {
      out.push({ id, input: cryptor.encryptBytesToString(input, key.publicKey) });
    } catch (error) {
      if (!(error instanceof EncryptionError)) throw error;
      const name = key.name ? ` ("${key.name}")` : '';
      throw new EncryptionError(
        error.reason,
        `cannot encrypt the input for organization ${id}${name}: ${error.message}`,
        { cause: error },
      );
    }
  }
  return out;
}
