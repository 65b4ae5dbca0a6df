import bcrypt from 'bcrypt';
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/** Password policy (docs/access-control.md#password-policy). Returns the problem, or null when the password is acceptable. */
export function passwordPolicyProblem(password: string): string | null {
  if (password.length < 8) return 'Password too short: use at least 8 characters.';
  if (password.length > 128) return 'Password too long: use at most 128 characters.';
  if (!/[0-9]/.test(password)) return 'Password must contain at least one digit.';
  if (!/[A-Z]/.test(password)) return 'Password must contain at least one uppercase letter.';
  if (!/[a-z]/.test(password)) return 'Password must contain at least one lowercase letter.';
  if (!/[^A-Za-z0-9]/.test(password))
    return 'Password must contain at least one special (non-alphanumeric) character.';
  return null;
}

export const hashPassword = (password: string, rounds: number): Promise<string> =>
  bcrypt.hash(password, rounds);

export const verifyPassword = async (password: string, hash: string): Promise<boolean> => {
  try {
    return await bcrypt.compare(password, hash);
  } catch {
    return false;
  }
};

/** A password that satisfies the policy, for the root user when none is configured. */
export const generatePassword = (): string => `${randomBytes(12).toString('base64url')}-Aa1!`;

/**
 * Node API keys are random UUIDv4 values (122 bits of randomness). They are stored only as a SHA-256 hash, which
 * for such high-entropy secrets is as safe as a slow hash and lets a login find its node by an indexed lookup
 * (docs/security.md explains the choice).
 */
export const newApiKey = (): string => randomUUID();
export const hashApiKey = (apiKey: string): string =>
  createHash('sha256').update(apiKey, 'utf8').digest('hex');
export const apiKeyMatches = (apiKey: string, hash: string): boolean => {
  const a = Buffer.from(hashApiKey(apiKey), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
};
