/** Run statuses (node-protocol §6.4), as the server stores and shows them. */
export const RunStatus = {
  pending: 'pending',
  initializing: 'initializing',
  active: 'active',
  completed: 'completed',
  failed: 'failed',
  startFailed: 'start failed',
  nonExistingImage: 'non-existing Docker image',
  crashed: 'crashed',
  killed: 'killed by user',
  notAllowed: 'not allowed',
  unknownError: 'unknown error',
} as const;

export type RunStatusValue = (typeof RunStatus)[keyof typeof RunStatus];

export const isFinishedStatus = (s: string): boolean => !['pending', 'initializing', 'active'].includes(s);
