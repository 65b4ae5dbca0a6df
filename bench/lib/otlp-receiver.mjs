#!/usr/bin/env node
// An OTLP/HTTP receiver (JSON) run by otlp-collector.mjs in a process of its own: it counts the spans of each
// export and answers 200. Sends {port} once listening; answers the message 'count' with {spans}.
import { createServer } from 'node:http';

let spans = 0;
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? []) spans += ss.spans?.length ?? 0;
    } catch {
      // Not OTLP/JSON: counted as no spans (the bench prints the count).
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'count') process.send({ spans });
});
process.on('disconnect', () => process.exit(0));
