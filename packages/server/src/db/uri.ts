import { isAbsolute, resolve } from 'node:path';

export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseTarget {
  dialect: DialectName;
  /** SQLite file path (or `:memory:`) or PostgreSQL connection string. */
  location: string;
}

/** A database URI problem, reported at start with the URI's scheme (never its password). */
export class DatabaseUriError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUriError';
  }
}

/**
 * Parses the configuration's `uri` (SQLAlchemy style, as vantage6): `sqlite:///relative.sqlite` is relative to
 * `dataDir`, `sqlite:////abs/path.sqlite` is absolute, `sqlite://` or `sqlite:///:memory:` is in memory;
 * `postgresql://…` (also `postgresql+psycopg2://…`, `postgres://…`) is PostgreSQL.
 */
export function parseDatabaseUri(uri: string, dataDir: string): DatabaseTarget {
  if (uri.startsWith('sqlite:')) {
    const rest = uri.slice('sqlite:'.length);
    if (rest === '' || rest === '//' || rest === '///:memory:' || rest === '//:memory:')
      return { dialect: 'sqlite', location: ':memory:' };
    if (!rest.startsWith('///'))
      throw new DatabaseUriError(`the SQLite URI must look like sqlite:///file.sqlite, got '${uri}'`);
    const path = rest.slice(3);
    return { dialect: 'sqlite', location: isAbsolute(path) ? path : resolve(dataDir, path) };
  }
  const m = /^(postgres|postgresql)(\+[a-z0-9]+)?:\/\//i.exec(uri);
  if (m) return { dialect: 'postgres', location: uri.replace(/^[^:]+:\/\//, 'postgresql://') };
  const scheme = uri.split(':')[0] ?? '';
  throw new DatabaseUriError(`unsupported database URI scheme '${scheme}'; use sqlite:/// or postgresql://`);
}
