/**
 * The OpenAPI document of the vantage6 4.x surface (docs/vantage6-4.md): `/v4/apispec.json`, and its pages at
 * `/v4/apidocs`, drawn by the Swagger UI the 3.x document's pages serve (`/apidocs/static`). It is made from the
 * schemas the 4.x routes validate and answer with, so it describes what they do.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import { V4_API_PATH } from '../../http/api-surfaces.js';

type Obj = Record<string, unknown>;

/** A JSON Schema as OpenAPI 3.0 takes it: without TypeBox's `$id`s, `[type, 'null']` written as `nullable`. */
function openApiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(openApiSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Obj = {};
  for (const [k, v] of Object.entries(schema as Obj)) {
    if (k === '$id') continue;
    if (k === 'type' && Array.isArray(v)) {
      const types = v.filter((t) => t !== 'null');
      out.type = types.length === 1 ? types[0] : types;
      if (types.length < v.length) out.nullable = true;
      continue;
    }
    out[k] = openApiSchema(v);
  }
  return out;
}

/** The parameters of one part of a route (`path`, `query`) from its object schema. */
function parameters(schema: unknown, where: 'path' | 'query'): Obj[] {
  const s = schema as { properties?: Obj; required?: string[] } | undefined;
  return Object.entries(s?.properties ?? {}).map(([name, p]) => ({
    name,
    in: where,
    required: where === 'path' || (s?.required ?? []).includes(name),
    schema: openApiSchema(p),
    ...((p as Obj).description ? { description: (p as Obj).description } : {}),
  }));
}

/** One route's operation. */
function operation(route: RouteOptions): Obj {
  const schema = (route.schema ?? {}) as Obj;
  const responses: Obj = {};
  for (const [code, body] of Object.entries((schema.response as Obj | undefined) ?? {}))
    responses[code] = {
      description: code.startsWith('2') ? 'success' : ((body as Obj).description ?? 'error'),
      content: { 'application/json': { schema: openApiSchema(body) } },
    };
  return {
    ...(schema.summary ? { summary: schema.summary } : {}),
    tags: [route.url.slice(V4_API_PATH.length + 1).split('/')[0]],
    parameters: [...parameters(schema.params, 'path'), ...parameters(schema.querystring, 'query')],
    ...(schema.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: openApiSchema(schema.body) } },
          },
        }
      : {}),
    responses,
  };
}

/** Collects the 4.x surface's routes as they are registered, and serves their document. */
export class V4ApiDocs {
  readonly #routes: RouteOptions[] = [];

  /** Called for each route of the surface (an `onRoute` hook), after its 4.x answer is set. */
  add(route: RouteOptions): void {
    if (route.method === 'HEAD' || (Array.isArray(route.method) && route.method.includes('HEAD'))) return;
    this.#routes.push({ ...route, schema: { ...(route.schema ?? {}) } });
  }

  document(version: string): Obj {
    const paths: Record<string, Obj> = {};
    for (const route of this.#routes) {
      const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}');
      for (const method of [route.method].flat())
        (paths[path] ??= {})[method.toLowerCase()] = operation(route);
    }
    return {
      openapi: '3.0.3',
      info: {
        title: 'Federa API: the vantage6 4.x surface',
        version,
        description:
          'The part of vantage6 4.14\'s API Federa serves at /v4/api (a 4.x client is built with api_path="/v4/api"). Listings answer {data, links} (page, per_page, sort). The 3.x surface is described at /apidocs.',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
      paths,
    };
  }

  /** `/v4/apispec.json` and `/v4/apidocs`. */
  register(app: FastifyInstance, version: string): void {
    let text: string | undefined;
    app.get('/v4/apispec.json', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('application/json; charset=utf-8').send((text ??= JSON.stringify(this.document(version)))),
    );
    app.get('/v4/apidocs', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/html; charset=utf-8').send(PAGE),
    );
    app.get('/v4/apidocs/init.js', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').send(INIT),
    );
  }
}

// The page's scripts come from the server (its content security policy allows no inline script).
const PAGE = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="UTF-8"><title>Federa API: the vantage6 4.x surface</title>
<link rel="stylesheet" href="/apidocs/static/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/apidocs/static/swagger-ui-bundle.js"></script>
<script src="/v4/apidocs/init.js"></script></body>
</html>
`;
const INIT = `window.ui = SwaggerUIBundle({ url: '/v4/apispec.json', dom_id: '#swagger-ui', deepLinking: true });\n`;
