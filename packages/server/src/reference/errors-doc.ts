import { ERROR_CODES, INTERNAL_ERROR_MESSAGE } from '../errors.js';

/** `docs/errors.md`, generated from the error table (errors.ts). */
export function renderErrorsMarkdown(): string {
  const rows = Object.entries(ERROR_CODES).map(
    ([code, e]) => `| \`${code}\` | ${e.status} | ${e.description} |`,
  );
  return [
    '# API error codes',
    '',
    '<!-- Generated from packages/server/src/errors.ts by `npm run docs`; a test checks it is current. -->',
    '',
    'Every refusal answers a JSON body `{"msg": "<what went wrong>", "code": "<code>"}`. Validation errors add',
    '`"message": {"<field>": "<problem>"}` naming the field. Server errors (5xx) always answer the same sentence:',
    '',
    `> ${INTERNAL_ERROR_MESSAGE}`,
    '',
    'and the details (SQL, stack trace) go to the server log only.',
    '',
    '| code | HTTP status | meaning |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
