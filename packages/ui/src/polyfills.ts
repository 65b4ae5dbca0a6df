// The SDK uses Node's Buffer for payload bytes; in the browser, the `buffer` package stands in for it.
import { Buffer } from 'buffer';

const scope = globalThis as { Buffer?: unknown };
scope.Buffer ??= Buffer;
