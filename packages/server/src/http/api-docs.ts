import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

/**
 * The OpenAPI document of every route's schema, at `/apispec_1.json` (where vantage6 serves it), and its pages at
 * `/apidocs`. Register before the routes, so that each is in the document.
 */
export async function registerApiDocs(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Federa API',
        version,
        description:
          'The Federa REST API (wire-compatible with vantage6 3.x). Authenticate with `POST /token/user`, then send `Authorization: Bearer <access_token>`. Paginated listings accept `page`, `per_page` and `include=metadata`.',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/apidocs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
  app.get('/apispec_1.json', { schema: { hide: true } }, async () => app.swagger());
}
