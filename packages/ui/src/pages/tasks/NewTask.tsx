/** The new-task form, optionally filled from a previous task (`?from=`). */
import { useEffect, useState, type FormEvent } from 'react';
import type { Collaboration, Organization } from '@federa/client';

import { client, keyState } from '../../api.js';
import { TextField } from '../../components/fields.js';
import { KeyLoader } from '../../components/KeyLoader.js';
import { ErrorBox, Field, Progress } from '../../components/ui.js';
import { useAction, useAsync } from '../../hooks.js';
import { navigate, type Route } from '../../router.js';
import { useLiveNodes } from '../Collaborations.js';
import { rememberWarning } from './created-warnings.js';
import { draftFrom, type Draft } from './draft-from.js';

export function NewTask({ route }: { route: Route }) {
  const from = Number(route.query.get('from')) || null;
  const [d, setD] = useState<Draft>({
    collaboration: Number(route.query.get('collaboration')) || null,
    organizations: [],
    image: '',
    method: '',
    args: '[]',
    kwargs: '{}',
    master: false,
    database: 'default',
    name: '',
    description: '',
  });
  const [keyName, setKeyName] = useState(keyState.fileName);
  const [prefill, setPrefill] = useState<string | null>(null);
  const collabs = useAsync(() => client.collaboration.list(), []);
  const collab: Collaboration | undefined = collabs.data?.find((c) => c.id === d.collaboration);
  const orgs = useAsync<Organization[]>(
    () => (d.collaboration ? client.collaboration.organizations(d.collaboration) : Promise.resolve([])),
    [d.collaboration],
  );
  // Each organization's node in the collaboration, its status followed live: a task for an offline node waits.
  const nodes = useLiveNodes(
    () => (d.collaboration ? client.collaboration.nodes(d.collaboration) : Promise.resolve([])),
    [d.collaboration],
  );
  const nodeState = (orgId: number): string => {
    const node = nodes.data?.find((n) => n.organization.id === orgId);
    if (!nodes.data) return '';
    return node ? `node ${nodes.statusOf(node)}` : 'no node';
  };
  useEffect(() => {
    if (!from) return;
    draftFrom(from).then(
      (draft) => {
        setD((old) => ({ ...old, ...draft }));
        setPrefill(
          draft.method
            ? `Copied from task #${from}; change what you need.`
            : `Copied from task #${from}; its input could not be read here (load the key of an organization it ran at to copy the arguments).`,
        );
      },
      () => setPrefill(`Task #${from} could not be read.`),
    );
  }, [from, keyName]);
  const action = useAction();
  const [formError, setFormError] = useState<string | null>(null);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]): void =>
    setD((old) => ({ ...old, [key]: value }));
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    setFormError(null);
    let args: unknown;
    let kwargs: unknown;
    try {
      args = JSON.parse(d.args || '[]');
      if (!Array.isArray(args)) throw new Error();
    } catch {
      setFormError('Arguments must be a JSON array, e.g. ["age"].');
      return;
    }
    try {
      kwargs = JSON.parse(d.kwargs || '{}');
      if (kwargs === null || typeof kwargs !== 'object' || Array.isArray(kwargs)) throw new Error();
    } catch {
      setFormError('Keyword arguments must be a JSON object, e.g. {"column": "age"}.');
      return;
    }
    if (!d.collaboration) return setFormError('Choose a collaboration.');
    if (d.organizations.length === 0) return setFormError('Choose at least one organization.');
    const created = await action.run(() =>
      client.task.create({
        collaborationId: d.collaboration!,
        organizations: d.organizations,
        name: d.name,
        description: d.description,
        image: d.image.trim(),
        database: d.database || 'default',
        input: {
          method: d.method,
          args,
          kwargs,
          ...(d.master ? { master: true } : {}),
          output_format: 'json',
        },
      }),
    );
    if (created) {
      rememberWarning(created.id, created.warning);
      navigate(`/task/${created.id}`);
    }
  };
  return (
    <section>
      <h1>New task</h1>
      {prefill ? <p className="notice">{prefill}</p> : null}
      <form className="card form-grid" onSubmit={(e) => void submit(e)} aria-label="New task">
        <Field label="Collaboration">
          {(id) => (
            <select
              id={id}
              required
              value={d.collaboration ?? ''}
              onChange={(e) =>
                setD((old) => ({ ...old, collaboration: Number(e.target.value) || null, organizations: [] }))
              }
            >
              <option value="">Choose…</option>
              {(collabs.data ?? []).map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                  {c.encrypted ? ' (encrypted)' : ''}
                </option>
              ))}
            </select>
          )}
        </Field>
        {collab?.encrypted ? (
          <div className="field wide">
            <span className="label">Encryption</span>
            <p>
              This collaboration is encrypted: the input is encrypted in this browser for each organization,
              and results are encrypted for yours. Load your organization's private key file.
            </p>
            <KeyLoader onLoaded={() => setKeyName(keyState.fileName)} />
          </div>
        ) : null}
        <fieldset className="field wide">
          <legend>Organizations that run it</legend>
          {orgs.loading && d.collaboration ? <Progress label="Loading organizations…" /> : null}
          {(orgs.data ?? []).map((o) => (
            <label key={o.id} className="check">
              <input
                type="checkbox"
                checked={d.organizations.includes(o.id)}
                onChange={(e) =>
                  set(
                    'organizations',
                    e.target.checked ? [...d.organizations, o.id] : d.organizations.filter((x) => x !== o.id),
                  )
                }
              />
              {o.name}
              {nodeState(o.id) ? ' ' : null}
              {nodeState(o.id) ? (
                <span className={`status status-${nodeState(o.id) === 'node online' ? 'ok' : 'off'}`}>
                  {nodeState(o.id)}
                </span>
              ) : null}
              {collab?.encrypted && !o.public_key ? (
                <small className="warn"> (no public key yet: its node has not started)</small>
              ) : null}
            </label>
          ))}
          {d.organizations.some((o) => nodeState(o) !== 'node online' && nodeState(o) !== '') ? (
            <p className="notice warning" role="status">
              A chosen organization's node is offline: the task waits for it and runs there when it connects.
            </p>
          ) : null}
          {d.collaboration && orgs.data?.length === 0 ? (
            <p>This collaboration has no organizations.</p>
          ) : null}
        </fieldset>
        <TextField
          label="Image"
          hint="The algorithm's Docker image, e.g. federa/average-python:local"
          required
          className="mono"
          value={d.image}
          onChange={(v) => set('image', v)}
        />
        <TextField label="Method" required value={d.method} onChange={(v) => set('method', v)} />
        <TextField
          label="Arguments (JSON array)"
          className="mono"
          value={d.args}
          onChange={(v) => set('args', v)}
        />
        <TextField
          label="Keyword arguments (JSON object)"
          className="mono"
          value={d.kwargs}
          onChange={(v) => set('kwargs', v)}
        />
        <label className="check">
          <input type="checkbox" checked={d.master} onChange={(e) => set('master', e.target.checked)} />{' '}
          Master (central) method: it creates sub-tasks itself
        </label>
        <TextField label="Database label" value={d.database} onChange={(v) => set('database', v)} />
        <TextField label="Name" value={d.name} onChange={(v) => set('name', v)} />
        <TextField label="Description" value={d.description} onChange={(v) => set('description', v)} />
        <ErrorBox error={formError ?? action.error} />
        <div className="wide">
          <button type="submit" className="primary" disabled={action.busy}>
            {action.busy ? (collab?.encrypted ? 'Encrypting and sending…' : 'Sending…') : 'Create task'}
          </button>
        </div>
      </form>
    </section>
  );
}
