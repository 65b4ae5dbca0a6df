/** The store catalogue (`#/store`): search, filter by status and partitioning; approved algorithms first. */
import { useState } from 'react';
import type { StoreAlgorithm } from '@federa/client';

import { client } from '../api.js';
import { SelectField, TextField } from '../components/fields.js';
import { ErrorBox, Progress, Status } from '../components/ui.js';
import { useAsync } from '../hooks.js';

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
      <h1>Algorithm store</h1>
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
            <h2>{a.display_name || a.name}</h2>
            <p>{a.description}</p>
            <p>
              <Status value={a.status} /> · {a.partitioning} ·{' '}
              <code className="mono">
                {a.image}
                {a.digest ? `@${a.digest}` : ' (no digest)'}
              </code>
            </p>
          </li>
        ))}
      </ul>
    </section>
  );
}
