export {
  FixtureError,
  loadFixtureFile,
  parseFixture,
  readFixtureFile,
  type Fixture,
  type FixtureFile,
  type FixtureCollaboration,
  type FixtureOrganization,
  type FixtureParticipant,
  type FixtureUser,
} from './fixture.js';
export { EXAMPLE_TASK_NAME, SUPER_ROLE, importFixture, type ImportReport } from './import-fixture.js';
export { runImport, type RunImportOptions } from './run-import.js';
