/**
 * The fields of a resource as the API answers it, sorted: what a vantage6 3.x client reads. Written out here rather
 * than taken from the schemas, so that a test of a route fails when a schema gains or loses a field.
 */
export const NODE_KEYS = [
  'collaboration',
  'config',
  'id',
  'ip',
  'last_seen',
  'name',
  'organization',
  'status',
  'type',
];
