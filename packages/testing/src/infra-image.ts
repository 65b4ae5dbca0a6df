import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The tag of the server and node images the tests of this checkout run: `test-` and the 8 hex digits of the
 * checkout's absolute path (scripts/lib/checkout.sh computes the same). scripts/test-all.sh builds them once per
 * run with `scripts/build-infra-images.sh --tag test-<id>`; two checkouts on one machine never share them, and the
 * tests never re-tag `federa/server:0` or `federa/node:0`, which belong to whoever deploys from this machine.
 */
export const INFRA_TEST_TAG = `test-${createHash('sha256')
  .update(realpathSync(fileURLToPath(new URL('../../..', import.meta.url))))
  .digest('hex')
  .slice(0, 8)}`;

/** The image of `kind` the tests of this checkout run (see {@link INFRA_TEST_TAG}). */
export const infraImage = (kind: 'server' | 'node'): string => `federa/${kind}:${INFRA_TEST_TAG}`;
