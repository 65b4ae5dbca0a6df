/**
 * The API's surfaces (docs/vantage6-4.md): the 3.x contract at `api_path` (default `/api`) and the vantage6 4.x
 * contract at `/v4/api`, on the same server and port. Both go through the same policies, limits, audit and error
 * answers; a route's policy is looked up by its path relative to its surface, so a 4.x route that does what a 3.x
 * route does has that route's rule, and no second copy of it.
 */

/** Where the vantage6 4.x surface is served (a 4.x client is built with `api_path='/v4/api'`). */
export const V4_API_PATH = '/v4/api';

/** The prefixes of the API's surfaces, the 3.x one first. */
export const apiPrefixes = (apiPath: string): readonly string[] =>
  apiPath === V4_API_PATH ? [apiPath] : [apiPath, V4_API_PATH];

/** A route URL split into its surface's prefix and the path relative to it; undefined outside the API. */
export function surfaceRoute(
  url: string,
  prefixes: readonly string[],
): { prefix: string; rel: string } | undefined {
  // The longer prefix first: `/v4/api` is not taken for a route of an `api_path` such as `/v4`.
  let found: { prefix: string; rel: string } | undefined;
  for (const prefix of prefixes)
    if (url.startsWith(`${prefix}/`) && (!found || prefix.length > found.prefix.length))
      found = { prefix, rel: url.slice(prefix.length) };
  return found;
}
