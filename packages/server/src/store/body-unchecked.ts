import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * A route's validator that leaves the body to the handler (which checks it field by field, naming each field, as
 * an author's description needs) and checks the path and query as every route does: converted, then checked.
 * The body's schema stays on the route for the OpenAPI document.
 */
export const bodyCheckedByHandler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return () => true;
  const typed = schema as TSchema;
  return (data: unknown) => {
    const value = Value.Convert(typed, data);
    if (Value.Check(typed, value)) return { value };
    const first = Value.Errors(typed, value).First();
    const error = Object.assign(new Error(first?.message ?? 'is invalid'), {
      validation: [
        {
          instancePath: first?.path ?? '',
          message: first?.message ?? 'is invalid',
          keyword: 'type',
          params: {},
        },
      ],
      validationContext: httpPart,
      statusCode: 400,
    });
    return { error };
  };
};
