/**
 * The key of audit chains (docs/audit.md, "The key"): entries are chained with HMAC-SHA256 under a secret of the
 * server or node, so that only whoever holds the key can rewrite a chain without `audit verify` noticing. The key
 * is kept apart from the log, in `<audit folder>.key` beside the folder (not in it: a copy of the log folder does
 * not carry the key), created at the first start with mode 0600.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';

export interface AuditKey {
  readonly secret: Buffer;
  /** Names the key in each entry (`keyed`): the first 16 hex digits of the SHA-256 of the secret. */
  readonly id: string;
  /** When the key was made: entries written after it without the key are not the writer's. */
  readonly createdAt: string;
}

/** Where the key of the audit folder `dir` is kept: beside it, `<dir>.key`. */
export const auditKeyPath = (dir: string): string => `${dir.replace(/[/\\]+$/, '')}.key`;

const keyOf = (secret: Buffer, createdAt: string): AuditKey => ({
  secret,
  id: createHash('sha256').update(secret).digest('hex').slice(0, 16),
  createdAt,
});

/** The key in `file`, or undefined when there is none. @throws when the file is not a key. */
export async function readAuditKey(file: string): Promise<AuditKey | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = JSON.parse(text) as { key?: unknown; created_at?: unknown };
  if (
    typeof parsed.key !== 'string' ||
    !/^[0-9a-f]{64}$/.test(parsed.key) ||
    typeof parsed.created_at !== 'string'
  )
    throw new Error(`${file} is not an audit key file (docs/audit.md, "The key")`);
  return keyOf(Buffer.from(parsed.key, 'hex'), parsed.created_at);
}

/** The key in `file`, made (mode 0600) when there is none yet. */
export async function openAuditKey(file: string, now: Date = new Date()): Promise<AuditKey> {
  const existing = await readAuditKey(file);
  if (existing) {
    await chmod(file, 0o600);
    return existing;
  }
  const secret = randomBytes(32);
  const createdAt = now.toISOString();
  try {
    await writeFile(file, `${JSON.stringify({ key: secret.toString('hex'), created_at: createdAt })}\n`, {
      mode: 0o600,
      flag: 'wx',
    });
  } catch (error) {
    // Another process of the same data folder made it at the same moment: use theirs.
    if ((error as { code?: unknown }).code === 'EEXIST') return (await readAuditKey(file))!;
    throw error;
  }
  return keyOf(secret, createdAt);
}

/** HMAC-SHA256 (hex) of `text` under `key`. */
export const auditMac = (key: AuditKey, text: string): string =>
  createHmac('sha256', key.secret).update(text).digest('hex');
