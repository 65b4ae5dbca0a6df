/** The store catalogue (`#/store`): search, filter by status and partitioning; approved algorithms first. */
import { useState } from 'react';
import type { StoreAlgorithm } from '@federa/client';

import { client } from '../api.js';
import { SelectField, TextField } from '../components/fields.js';
import { ErrorBox, Progress } from '../components/ui.js';
import { useAsync } from '../hooks.js';
import { Link } from '../router.js';
import { StoreStatus } from './StoreStatus.js';
import './store.css';

const STATUSES = [
  'approved',
  'all',
  'awaiting reviewer assignment',
  'under review',
  'rejected',
  'replaced',
  'removed',
];

/** Approved algorithms first, then by name. */
export function catalogueOrder(list: readonly StoreAlgorithm[]): StoreAlgorithm[] {
  const rank = (a: StoreAlgorithm): number => (a.status === 'approved' ? 0 : 1);
  return [...list].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

export function Catalogue() {
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('approved');
  const [partitioning, setPartitioning] = useState('');
  const list = useAsync(
    () =>
      client.store.list({
        ...(search.trim() ? { search: search.trim() } : {}),
        status,
        ...(partitioning ? { partitioning: partitioning as 'horizontal' | 'vertical' } : {}),
        perPage: 100,
      }),
    [search, status, partitioning],
  );
  return (
    <section>
      <div className="titlebar">
        <h1>Algorithm store</h1>
        <Link to="/store/reviews">Reviews</Link>
      </div>
      <p>
        Reviewed algorithms: choose one to read what it does, then create a task from one of its functions.
      </p>
      <form className="card form-grid" role="search" onSubmit={(e) => e.preventDefault()}>
        <TextField label="Search" type="search" value={search} onChange={setSearch} />
        <SelectField
          label="Status"
          value={status}
          onChange={setStatus}
          choices={STATUSES.map((s) => ({ value: s, label: s }))}
        />
        <SelectField
          label="Partitioning"
          value={partitioning}
          onChange={setPartitioning}
          empty="any"
          choices={[
            { value: 'horizontal', label: 'horizontal' },
            { value: 'vertical', label: 'vertical' },
          ]}
        />
      </form>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? <Progress label="Loading algorithms…" /> : null}
      {list.data?.length === 0 ? <p>No algorithm matches.</p> : null}
      <ul className="catalogue" aria-label="Algorithms">
        {catalogueOrder(list.data ?? []).map((a) => (
          <li key={a.id} className="card">
            <h2>
              <Link to={`/store/algorithm/${a.id}`}>{a.display_name || a.name}</Link>
            </h2>
            <p>{a.description}</p>
            <p>
              <StoreStatus value={a.status} /> · {a.partitioning} ·{' '}
              <code className="mono break">
                {a.image}
                {a.digest ? `@${a.digest.slice(0, 19)}…` : ' (no digest)'}
              </code>
            </p>
            {a.status === 'approved' && a.digest && a.functions.some((f) => f.standalone) ? (
              <a
                className="button"
                href={`#/store/new-task?algorithm=${a.id}`}
                aria-label={`Create a task with ${a.display_name || a.name}`}
              >
                Create a task
              </a>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
