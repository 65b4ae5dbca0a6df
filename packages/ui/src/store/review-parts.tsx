/**
 * The review steps the algorithm page and the reviewer's page share: who the store takes the user for, a
 * reviewer's decision with its comment, and a store manager assigning a reviewer.
 */
import { useId, useState } from 'react';
import type { StoreAlgorithm, StoreFilters, StorePerson, StoreReview, StoreUser } from '@federa/client';

import { client } from '../api.js';
import { SelectField } from '../components/fields.js';
import { ErrorBox, Notice } from '../components/ui.js';
import { useAction, useAsync, type AsyncState } from '../hooks.js';

/**
 * Algorithms of every status the caller may see: the store answers `status=all` with every status for reviewers
 * and managers, but with the caller's own algorithms only for others, who also see the approved ones and those
 * replaced since (a task that ran one still shows its views).
 */
export async function visibleAlgorithms(filter: StoreFilters): Promise<StoreAlgorithm[]> {
  const lists = await Promise.all(
    ['approved', 'replaced', 'all'].map((status) => client.store.list({ ...filter, status, perPage: 100 })),
  );
  const byId = new Map(lists.flat().map((a) => [a.id, a]));
  return [...byId.values()].sort((a, b) => b.id - a.id);
}

/** The store's view of the signed-in user: their store roles. */
export function useStoreMe(): AsyncState<StoreUser> {
  return useAsync(() => client.store.me(), []);
}

export const hasRole = (me: StoreUser | undefined, role: string): boolean =>
  me?.roles.includes(role) ?? false;

export const personName = (p: StorePerson | undefined): string =>
  p?.username ? p.username : p ? `store user ${p.id}` : '—';

/**
 * Approve, or reject with a comment (required for a rejection: the author needs to know why). `onDone` gets what
 * happened, for the page to show: the decided review leaves the list of open ones.
 */
export function ReviewDecision({
  review,
  onDone,
}: {
  review: StoreReview;
  onDone: (outcome: string) => void;
}) {
  const id = useId();
  const [comment, setComment] = useState('');
  const [missing, setMissing] = useState<string | null>(null);
  const action = useAction();
  const decide = async (approve: boolean): Promise<void> => {
    setMissing(null);
    const text = comment.trim();
    if (!approve && text === '') {
      setMissing('A rejection needs a comment that tells the author why.');
      return;
    }
    const answer = await action.run(() =>
      approve
        ? client.store.approve(review.id, text === '' ? undefined : text)
        : client.store.reject(review.id, text),
    );
    if (!answer) return;
    const still =
      'still_needed' in answer && answer.still_needed ? ` Still needed: ${answer.still_needed}` : '';
    onDone(
      `You ${approve ? 'approved' : 'rejected'} it. The algorithm is now ${answer.algorithm_status}.${still}`,
    );
  };
  return (
    <div className="review-box">
      <div className="field">
        <label htmlFor={id}>Your comment (required to reject)</label>
        <textarea
          id={id}
          value={comment}
          aria-invalid={missing ? true : undefined}
          onChange={(e) => setComment(e.target.value)}
        />
      </div>
      <ErrorBox error={missing ?? action.error} />
      <div className="actions">
        <button type="button" className="primary" disabled={action.busy} onClick={() => void decide(true)}>
          Approve
        </button>
        <button type="button" className="danger" disabled={action.busy} onClick={() => void decide(false)}>
          Reject
        </button>
      </div>
    </div>
  );
}

/** A store manager picks a reviewer (a store user with the reviewer role) for an algorithm. */
export function AssignReviewer({
  algorithm,
  reviewers,
  taken,
  onDone,
}: {
  algorithm: StoreAlgorithm;
  reviewers: readonly StoreUser[];
  /** Store user ids already reviewing it. */
  taken: readonly number[];
  onDone: () => void;
}) {
  const [reviewer, setReviewer] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const action = useAction();
  const free = reviewers.filter((r) => !taken.includes(r.id));
  const assign = async (): Promise<void> => {
    const chosen = free.find((r) => r.id === Number(reviewer));
    if (!chosen) return;
    const created = await action.run(() => client.store.assignReviewer(algorithm.id, chosen.id));
    if (!created) return;
    setDone(`${chosen.username} now reviews ${algorithm.display_name || algorithm.name}.`);
    setReviewer('');
    onDone();
  };
  return (
    <div>
      <form
        className="inline"
        aria-label={`Assign a reviewer to ${algorithm.display_name || algorithm.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          void assign();
        }}
      >
        <SelectField
          label="Reviewer"
          value={reviewer}
          empty={free.length === 0 ? 'No reviewer left to assign' : 'Choose…'}
          onChange={setReviewer}
          choices={free.map((r) => ({
            value: r.id,
            label: `${r.username}${r.organization_id ? ` (organization ${r.organization_id})` : ''}`,
          }))}
        />
        <button type="submit" disabled={action.busy || reviewer === ''}>
          Assign
        </button>
      </form>
      <ErrorBox error={action.error} />
      {done ? <Notice>{done}</Notice> : null}
    </div>
  );
}
