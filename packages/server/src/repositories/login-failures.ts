import { isIPv6 } from 'node:net';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { formatStored } from '../db/stored-time.js';

/**
 * Failed password checks, counted per account and address, and per account (docs/security.md, "Who a lock keeps
 * out"). A lock holds for the address the failures came from only, so that someone who knows a username cannot
 * keep its owner out from elsewhere; the account's own count, over every address, only slows checks from
 * addresses the account has never logged in from, and only at a much larger number. A password reset link is
 * never refused by either (it is no password check) and clears both.
 */

export interface LockPolicy {
  /** Failures from one address that lock the account for that address. */
  max_failed_attempts: number;
  /** How long such a lock holds; also how long a quiet spell must last for a count to start again. */
  inactivation_minutes: number;
  /** Failures over all addresses after which checks from unknown addresses are slowed. */
  account_slow_after_failures: number;
  /** While slowed: at most one check per this many seconds from an unknown address. */
  account_slow_seconds: number;
}

export type CheckAdmission =
  { admitted: true; failures: number } | { admitted: false; reason: 'locked' | 'slowed' };

/** How long an address stays known to an account after the account's password was last given from it. */
export const KNOWN_ADDRESS_DAYS = 90;

/**
 * The address as failures are counted for it: an IPv4 address as it is (also when written as IPv6), an IPv6
 * address by its /64 prefix, which one subscriber usually holds whole: counted per full address, a single
 * attacker would get a fresh count with every one of its 2^64 addresses.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip.slice(0, 64);
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = ip.includes('::') && tail ? tail.split(':') : [];
  const groups = ip.includes('::')
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

const minutesBefore = (now: Date, minutes: number): string =>
  formatStored(new Date(now.getTime() - minutes * 60_000));

/**
 * Counts a password check of an account from an address before it is made, unless a lock or the slowing refuses
 * it (then the check must not be believed, whatever its outcome). Each count is one statement, so that checks
 * made side by side are counted one by one, on SQLite and on PostgreSQL alike. A locked address touches nothing
 * else: its checks neither count for the account nor take the slowed account's turn.
 */
export async function countPasswordCheck(
  db: Kysely<Database>,
  userId: number,
  ip: string,
  policy: LockPolicy,
  now = new Date(),
): Promise<CheckAdmission> {
  const at = formatStored(now);
  const windowStart = minutesBefore(now, policy.inactivation_minutes);
  const max = policy.max_failed_attempts;
  const pair = await db
    .insertInto('login_failure')
    .values({ user_id: userId, address: addressKey(ip), failures: 1, last_failure_at: at })
    .onConflict((oc) =>
      oc
        .columns(['user_id', 'address'])
        .doUpdateSet((eb) => ({
          failures: eb
            .case()
            .when(
              eb.or([
                eb('login_failure.last_failure_at', 'is', null),
                eb('login_failure.last_failure_at', '<=', windowStart),
              ]),
            )
            .then(1)
            .else(eb('login_failure.failures', '+', 1))
            .end(),
          last_failure_at: at,
        }))
        .where((eb) =>
          eb.not(
            eb.and([
              eb('login_failure.failures', '>=', max),
              eb('login_failure.last_failure_at', '>', windowStart),
            ]),
          ),
        ),
    )
    .returning(['failures', 'succeeded_at'])
    .executeTakeFirst();
  if (!pair) return { admitted: false, reason: 'locked' };
  const known =
    pair.succeeded_at !== null && pair.succeeded_at > minutesBefore(now, KNOWN_ADDRESS_DAYS * 24 * 60);
  const slowSince = formatStored(new Date(now.getTime() - policy.account_slow_seconds * 1000));
  let account = db
    .updateTable('user')
    .set((eb) => ({
      failed_login_attempts: eb
        .case()
        .when(eb.or([eb('last_login_attempt', 'is', null), eb('last_login_attempt', '<=', windowStart)]))
        .then(1)
        .else(eb('failed_login_attempts', '+', 1))
        .end(),
      last_login_attempt: at,
    }))
    .where('id', '=', userId);
  if (!known)
    account = account.where((eb) =>
      eb.not(
        eb.and([
          eb('failed_login_attempts', '>=', policy.account_slow_after_failures),
          eb('last_login_attempt', '>', slowSince),
        ]),
      ),
    );
  const row = await account.returning('failed_login_attempts').executeTakeFirst();
  if (!row) return { admitted: false, reason: 'slowed' };
  return { admitted: true, failures: Number(pair.failures) };
}

/** The sweeps of stale rows, per database handle: at most one a minute. */
const lastSweep = new WeakMap<object, number>();

/**
 * A password check that passed: the address's and the account's counts start afresh, and the address is known to
 * the account from now on. Rows that lock nothing and mark no known address are forgotten now and then.
 */
export async function recordPasswordCheckPassed(
  db: Kysely<Database>,
  userId: number,
  ip: string,
  policy: LockPolicy,
  now = new Date(),
): Promise<void> {
  const at = formatStored(now);
  await db
    .insertInto('login_failure')
    .values({ user_id: userId, address: addressKey(ip), failures: 0, succeeded_at: at })
    .onConflict((oc) => oc.columns(['user_id', 'address']).doUpdateSet({ failures: 0, succeeded_at: at }))
    .execute();
  await db.updateTable('user').set({ failed_login_attempts: 0 }).where('id', '=', userId).execute();
  if (now.getTime() - (lastSweep.get(db) ?? 0) < 60_000) return;
  lastSweep.set(db, now.getTime());
  const windowStart = minutesBefore(now, policy.inactivation_minutes);
  const knownSince = minutesBefore(now, KNOWN_ADDRESS_DAYS * 24 * 60);
  await db
    .deleteFrom('login_failure')
    .where((eb) =>
      eb.and([
        eb.or([eb('last_failure_at', 'is', null), eb('last_failure_at', '<=', windowStart)]),
        eb.or([eb('succeeded_at', 'is', null), eb('succeeded_at', '<=', knownSince)]),
      ]),
    )
    .execute();
}

/** A new password (changed or reset): every lock of the account ends; known addresses stay known. */
export async function clearLoginFailures(db: Kysely<Database>, userId: number): Promise<void> {
  await db.updateTable('login_failure').set({ failures: 0 }).where('user_id', '=', userId).execute();
}
