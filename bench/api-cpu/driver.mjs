#!/usr/bin/env node
// The load generator of bench/api-cpu, in a process of its own so that its CPU is not the server's: to the message
// {url, headers, requests, connections} it sends `requests` GETs over `connections` kept-alive connections, each
// as soon as the last one on its connection was answered, and answers {answered, failed} when all are done.
import { Agent, request } from 'node:http';

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One GET; resolves with its status once its body was read. */
const get = (url, headers) =>
  new Promise((resolve, reject) => {
    const req = request(url, { agent, headers }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(res.statusCode));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });

process.on('message', async ({ url, headers, requests, connections }) => {
  let sent = 0;
  let answered = 0;
  let failed = 0;
  const connection = async () => {
    while (sent < requests) {
      sent++;
      try {
        const status = await get(url, headers);
        if (status >= 200 && status < 300) answered++;
        else failed++;
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, connection));
  process.send({ answered, failed });
});
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
