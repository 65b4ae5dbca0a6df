/** Run statuses (docs/run-statuses.md): one table in common, shared with the server. */
export { RunStatus, isFinishedRunStatus, type RunStatusValue } from '@federa/common';
