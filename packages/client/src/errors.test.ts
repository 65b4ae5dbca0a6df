import { describe, expect, it } from 'vitest';

import {
  AuthenticationError,
  FederaApiError,
  NotFoundError,
  PermissionError,
  ValidationError,
  apiErrorFor,
  isExpiredToken,
} from './errors.js';

const details = (status: number, code: string | null, serverMessage: string) => ({
  status,
  code,
  serverMessage,
  method: 'GET',
  path: '/api/task/1',
});

describe('apiErrorFor', () => {
  it('maps statuses and codes to classes', () => {
    expect(apiErrorFor(details(401, 'forbidden', 'no rule'))).toBeInstanceOf(PermissionError);
    expect(apiErrorFor(details(401, 'token_expired', 'Token has expired'))).toBeInstanceOf(
      AuthenticationError,
    );
    expect(apiErrorFor(details(422, 'invalid_token', 'bad'))).toBeInstanceOf(AuthenticationError);
    expect(apiErrorFor(details(404, 'not_found', 'gone'))).toBeInstanceOf(NotFoundError);
    expect(apiErrorFor(details(400, 'validation_failed', 'x'))).toBeInstanceOf(ValidationError);
    const e = apiErrorFor(details(500, 'internal', 'oops'));
    expect(e).toBeInstanceOf(FederaApiError);
    expect(e.constructor).toBe(FederaApiError);
  });

  it('reads vantage6 answers without a code from the message', () => {
    expect(apiErrorFor(details(401, null, 'You lack the permission to do that!'))).toBeInstanceOf(
      PermissionError,
    );
    expect(apiErrorFor(details(401, null, 'Missing Authorization Header'))).toBeInstanceOf(
      AuthenticationError,
    );
    expect(isExpiredToken(401, null, 'Token has expired')).toBe(true);
    expect(isExpiredToken(401, 'forbidden', 'no')).toBe(false);
  });

  it('carries status, code and the server message', () => {
    const e = apiErrorFor(details(404, 'not_found', 'task with id=1 not found'));
    expect(e).toMatchObject({ status: 404, code: 'not_found', serverMessage: 'task with id=1 not found' });
    expect(e.message).toBe('GET /api/task/1 failed with 404: task with id=1 not found');
    expect(e.name).toBe('NotFoundError');
  });
});
