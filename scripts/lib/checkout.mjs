// What names this checkout apart from another on the same machine: the same 8 hex digits of its absolute path as
// scripts/lib/checkout.sh computes (FEDERA_CHECKOUT_ID), for the main job's Docker objects.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The checkout's absolute path, symbolic links resolved. */
export const checkoutRoot = realpathSync(fileURLToPath(new URL('../..', import.meta.url)));

/** 8 hex digits of {@link checkoutRoot}. */
export const checkoutId = createHash('sha256').update(checkoutRoot).digest('hex').slice(0, 8);
