/**
 * Serves the built web UI (packages/ui/dist, docs/ui.md) at `ui.path`: `index.html` at the path itself and the
 * hashed assets under `<path>assets/`. Files are read once at start and kept in memory with a gzip copy;
 * nothing else on disk can be reached through these routes. Every answer carries the UI's security headers.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import type { AppContext } from '../context.js';

/** Where `npm run build -w packages/ui` writes the UI, found from this package (also inside the image). */
export const DEFAULT_UI_DIRECTORY = resolve(dirname(fileURLToPath(import.meta.url)), '../../../ui/dist');

/**
 * The Content-Security-Policy of the UI: its own scripts and styles only (no inline code, no CDN), API and
 * socket calls to this server only, no framing.
 */
export const UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': UI_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

interface StaticFile {
  body: Buffer;
  gzip: Buffer | null;
  type: string;
  cache: string;
}

function loadFile(path: string, cache: string, transform?: (text: string) => string): StaticFile {
  let body = readFileSync(path);
  if (transform) body = Buffer.from(transform(body.toString('utf8')));
  const type = TYPES[extname(path)] ?? 'application/octet-stream';
  const compressible = /text|javascript|json|svg/.test(type) && body.length > 1024;
  return { body, gzip: compressible ? gzipSync(body, { level: 9 }) : null, type, cache };
}

function send(request: FastifyRequest, reply: FastifyReply, file: StaticFile): FastifyReply {
  void reply.headers(SECURITY_HEADERS).header('content-type', file.type).header('cache-control', file.cache);
  void reply.header('vary', 'accept-encoding');
  const accepts = String(request.headers['accept-encoding'] ?? '');
  if (file.gzip && /\bgzip\b/.test(accepts)) {
    return reply.header('content-encoding', 'gzip').send(file.gzip);
  }
  return reply.send(file.body);
}

export interface UiOptions {
  /** URL path of the UI, starting and ending with `/`. */
  path: string;
  /** Folder of the built UI. */
  directory: string;
  /** The API prefix, written into the page so the UI knows where the API is. */
  apiPath: string;
  /** Whether password recovery by e-mail works here (a mail server is configured): the login page offers it only then. */
  passwordRecovery?: boolean;
}

/** The files of a built UI, read once per folder and API prefix (tests build many apps in one process). */
const loaded = new Map<string, { index: StaticFile; assets: Map<string, StaticFile>; stamp: number }>();

function readUi(
  directory: string,
  apiPath: string,
  passwordRecovery: boolean,
): { index: StaticFile; assets: Map<string, StaticFile> } | null {
  const indexPath = join(directory, 'index.html');
  if (!existsSync(indexPath)) return null;
  const stamp = statSync(indexPath).mtimeMs;
  const key = `${directory}\0${apiPath}\0${passwordRecovery}`;
  const kept = loaded.get(key);
  if (kept && kept.stamp === stamp) return kept;
  const meta =
    `<meta name="federa-api-path" content="${apiPath.replace(/[^A-Za-z0-9_.~/-]/g, '')}" />\n    ` +
    `<meta name="federa-password-recovery" content="${passwordRecovery ? 'on' : 'off'}" />`;
  const index = loadFile(indexPath, 'no-cache', (html) => html.replace('<head>', `<head>\n    ${meta}`));
  const assets = new Map<string, StaticFile>();
  const assetDir = join(directory, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      const full = join(assetDir, name);
      // Vite names assets by content hash: they can be kept for a year.
      if (statSync(full).isFile()) assets.set(name, loadFile(full, 'public, max-age=31536000, immutable'));
    }
  }
  loaded.set(key, { index, assets, stamp });
  return { index, assets };
}

/**
 * Registers the UI's routes. Returns false (and registers nothing) when the folder holds no built UI; the caller
 * logs that.
 */
export function registerUi(app: FastifyInstance, options: UiOptions): boolean {
  const ui = readUi(options.directory, options.apiPath, options.passwordRecovery ?? true);
  if (!ui) return false;
  const { index, assets } = ui;
  const base = options.path;
  const hide = { schema: { hide: true } };
  app.get(base, hide, (request, reply) => send(request, reply, index));
  app.get(`${base}index.html`, hide, (request, reply) => send(request, reply, index));
  app.get<{ Params: { file: string } }>(`${base}assets/:file`, hide, (request, reply) => {
    const file = assets.get(request.params.file);
    if (!file) {
      return reply
        .status(404)
        .send({ msg: `No such file of the web UI: ${request.params.file}`, code: 'route_not_found' });
    }
    return send(request, reply, file);
  });
  return true;
}

/**
 * Serves the UI as the configuration says (`ui.enabled`, `ui.path`, `ui.directory`; docs/server-configuration.md)
 * and logs where it is, or why it is not served.
 */
export function registerConfiguredUi(app: FastifyInstance, ctx: AppContext): void {
  const ui = ctx.config.ui;
  if (!ui.enabled) return;
  const apiPath = ctx.config.api_path;
  if (apiPath === '' || ui.path.startsWith(`${apiPath}/`)) {
    ctx.log.warn(
      { event: 'ui.not_served', path: ui.path, api_path: apiPath },
      'web UI not served: ui.path must lie outside api_path (and api_path must not be empty)',
    );
    return;
  }
  const directory = ui.directory ?? DEFAULT_UI_DIRECTORY;
  if (!registerUi(app, { path: ui.path, directory, apiPath, passwordRecovery: ctx.mailer !== null })) {
    ctx.log.warn(
      { event: 'ui.not_built', directory },
      'web UI not served: no built UI in its folder (run `npm run build`, which builds packages/ui)',
    );
    return;
  }
  ctx.log.info({ event: 'ui.served', path: ui.path }, 'web UI served');
}
