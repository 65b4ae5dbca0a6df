/**
 * Request bodies: the client names fields in camelCase and sends them as the server declares them in
 * `@federa/common`; a field the server does not know, or a value of another type, does not compile (checked by the
 * type check of the tests).
 */
import { describe, expect, it } from 'vitest';
import type { NewUserBody, OrganizationBody } from '@federa/common';
import { wireBody, type Fits } from './base.js';
import type { OrganizationFields } from './organization.js';
import type { NewUser } from './user.js';

describe('request bodies', () => {
  it("sends the client's fields under the server's names and leaves out what was not given", () => {
    const user: Fits<NewUser, NewUserBody> = {
      username: 'ann',
      firstname: 'Ann',
      lastname: 'Smit',
      password: 'Secret-123!',
      email: 'ann@example.org',
      organizationId: 3,
      roles: undefined,
    };
    expect(wireBody(user)).toEqual({
      username: 'ann',
      firstname: 'Ann',
      lastname: 'Smit',
      password: 'Secret-123!',
      email: 'ann@example.org',
      organization_id: 3,
    });
    const organization: Fits<OrganizationFields, OrganizationBody> = { publicKey: 'a2V5' };
    expect(wireBody(organization)).toEqual({ public_key: 'a2V5' });
  });

  it('does not compile a field the server does not know or a value of another type', () => {
    // @ts-expect-error `colour` is no field of the organization body
    type _Unknown = Fits<{ colour?: string }, OrganizationBody>;
    // @ts-expect-error an organization's name is a string
    type _WrongType = Fits<{ name?: number }, OrganizationBody>;
    // Well-formed fields compile; what they send is checked above.
    const fits: Fits<{ name?: string }, OrganizationBody> = { name: 'Hospital A' };
    expect(wireBody(fits)).toEqual({ name: 'Hospital A' });
  });
});
