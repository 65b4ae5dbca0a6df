// Sums the results of every test runner of scripts/test-all.sh and prints "N passed, N failed".
// Exit code 0 only when nothing failed (tests, or the lint/typecheck/build steps counted in argv[3]).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const stepFailures = Number(process.argv[3] ?? 0);
let passed = 0;
let failed = 0;
const lines = [];
for (const f of readdirSync(dir)) {
  const p = join(dir, f);
  if (f.endsWith('.json')) {
    const r = JSON.parse(readFileSync(p, 'utf8'));
    // A file that failed to load counts as a failure even when it has no test results.
    const broken = (r.testResults ?? []).filter(
      (t) => t.status === 'failed' && (t.assertionResults ?? []).length === 0,
    ).length;
    passed += r.numPassedTests;
    failed += r.numFailedTests + broken + (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    lines.push(
      `${f}: ${r.numPassedTests} passed, ${r.numFailedTests + broken} failed, ${r.numPendingTests ?? 0} skipped`,
    );
  } else if (f.endsWith('.xml')) {
    const x = readFileSync(p, 'utf8');
    // JUnit files of pytest and of the R client's tests (clients/r/tests/run-tests.mjs); attributes in any order.
    const suite = /<testsuite\s[^>]*>/.exec(x)?.[0] ?? '';
    const attr = (name) => new RegExp(`\\b${name}="(\\d+)"`).exec(suite)?.[1];
    const m =
      attr('tests') === undefined
        ? null
        : [suite, ...['errors', 'failures', 'skipped', 'tests'].map((a) => attr(a) ?? '0')];
    if (m) {
      const [errors, fails, skipped, tests] = m.slice(1).map(Number);
      passed += tests - errors - fails - skipped;
      failed += errors + fails + skipped;
      lines.push(
        `${f}: ${tests - errors - fails - skipped} passed, ${errors + fails} failed, ${skipped} skipped`,
      );
    }
  }
}
if (!existsSync(join(dir, 'vitest-sqlite.json'))) {
  failed += 1;
  lines.push('vitest (SQLite) produced no results');
}
for (const l of lines) console.log(`  ${l}`);
if (stepFailures > 0) console.log(`  ${stepFailures} build/lint step(s) failed`);
console.log(`${passed} passed, ${failed + stepFailures} failed`);
process.exit(failed + stepFailures > 0 ? 1 : 0);
