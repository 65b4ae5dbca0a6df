/** What an import created and what it found already there (names, for the CLI's summary). */
export interface ImportReport {
  readonly created: {
    organizations: string[];
    users: string[];
    roles: string[];
    collaborations: string[];
    nodes: string[];
    tasks: string[];
  };
  /** The API key of each node created (the only time it can be shown: it is stored hashed). */
  readonly nodeKeys: { node: string; organization: string; collaboration: string; api_key: string }[];
  readonly skipped: {
    organizations: string[];
    users: string[];
    collaborations: string[];
    nodes: string[];
    tasks: string[];
  };
}
