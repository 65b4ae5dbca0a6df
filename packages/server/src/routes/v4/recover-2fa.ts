/**
 * vantage6 4.x's `/recover/2fa/lost` and `/recover/2fa/reset` (docs/vantage6-4.md#two-factor-authentication):
 * Federa offers no two-factor authentication, so there is no secret to recover or reset. Both answer, to everyone
 * and whatever the credentials, that it is not offered (`501`, with 4.x's `msg`); nothing is checked against an
 * account, so the answer tells nobody whether a username or password is right.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../../errors.js';
import { errorResponses } from '../../serializers/common.js';

const NOT_OFFERED =
  'This server does not offer two-factor authentication: there is no two-factor secret to recover or reset. Log in with your username and password; a lost password is recovered with POST /recover/lost.';

const Credential = Type.String({ maxLength: 1000 });

export const recover2faRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const refuse = () => {
    throw new ApiError('not_configured', NOT_OFFERED);
  };
  app.post(
    '/recover/2fa/lost',
    {
      schema: {
        tags: ['vantage6 4.x'],
        summary: 'Recover a two-factor secret: not offered (this server has no two-factor authentication)',
        body: Type.Object(
          { username: Type.Optional(Credential), password: Type.Optional(Credential) },
          { additionalProperties: false },
        ),
        response: errorResponses,
      },
    },
    refuse,
  );
  app.post(
    '/recover/2fa/reset',
    {
      schema: {
        tags: ['vantage6 4.x'],
        summary: 'Reset a two-factor secret: not offered (this server has no two-factor authentication)',
        body: Type.Object({ reset_token: Type.Optional(Credential) }, { additionalProperties: false }),
        response: errorResponses,
      },
    },
    refuse,
  );
};
