// A JUnit file of one test case, for a step of scripts/test-all.sh that is a program rather than a test runner (the
// main job): test-summary.mjs counts it with the others.
//   node scripts/lib/junit-one.mjs OUT.xml NAME STATUS SECONDS [LOG]     STATUS 0: passed; anything else: failed
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const [out, name, status, seconds, log] = process.argv.slice(2);
if (!out || !name || status === undefined) {
  console.error('usage: junit-one.mjs OUT.xml NAME STATUS SECONDS [LOG]');
  process.exit(2);
}
const escape = (text) =>
  text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
const failed = status !== '0';
const tail = log && existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-40).join('\n') : '';
const time = Number(seconds) || 0;
writeFileSync(
  out,
  [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="${escape(name)}" tests="1" failures="${failed ? 1 : 0}" errors="0" skipped="0" time="${time}">`,
    `  <testcase name="${escape(name)}" time="${time}">`,
    ...(failed ? [`    <failure message="exit status ${escape(status)}">${escape(tail)}</failure>`] : []),
    '  </testcase>',
    '</testsuite>',
    '',
  ].join('\n'),
);
