#!/usr/bin/env node
// The ceiling of bench/large-result: a plain file copy over HTTP in its own process. PUT /file streams the body into
// a file (flushed, renamed, as the folder store does); GET /file streams it back. No authentication, no database,
// no checksum. Prints {"port": N} once listening.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const dir = mkdtempSync(join(tmpdir(), 'federa-bare-copy-'));
const file = join(dir, 'file');
const server = createServer(async (req, res) => {
  try {
    if (req.method === 'PUT') {
      await pipeline(req, createWriteStream(`${file}.tmp`));
      renameSync(`${file}.tmp`, file);
      res.writeHead(201).end();
    } else {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': statSync(file).size,
      });
      await pipeline(createReadStream(file, { highWaterMark: 256 * 1024 }), res);
    }
  } catch (error) {
    res.destroy(error);
  }
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`),
);
process.on('SIGTERM', () => {
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
