/**
 * The reviewer's page (`#/store/reviews`): the reviews assigned to the signed-in user, each approved or rejected
 * with a comment here, and their past decisions. A store manager also sees the algorithms that wait for
 * reviewers and assigns them.
 */
import type { StoreAlgorithm, StoreReview } from '@federa/client';

import { client } from '../api.js';
import { ErrorBox, Notice, Progress, formatTime } from '../components/ui.js';
import { useState } from 'react';
import { useAsync } from '../hooks.js';
import { Link } from '../router.js';
import { AssignReviewer, ReviewDecision, hasRole, personName, useStoreMe } from './review-parts.js';
import { StoreStatus } from './StoreStatus.js';
import './store.css';

const nameOf = (a: StoreAlgorithm | undefined, id: number): string =>
  a ? `${a.display_name || a.name} (#${a.id})` : `algorithm #${id}`;

/** The algorithms the reviews are about, read once each. */
async function withAlgorithms(
  reviews: StoreReview[],
): Promise<{ reviews: StoreReview[]; algorithms: Map<number, StoreAlgorithm> }> {
  const ids = [...new Set(reviews.map((r) => r.algorithm_id))];
  const found = await Promise.all(ids.map((id) => client.store.get(id).catch(() => null)));
  return {
    reviews,
    algorithms: new Map(found.filter((a): a is StoreAlgorithm => a !== null).map((a) => [a.id, a])),
  };
}

export function Reviews() {
  const me = useStoreMe();
  const [decided, setDecided] = useState<string | null>(null);
  const myId = me.data?.id;
  const reviewer = hasRole(me.data, 'reviewer');
  const manager = hasRole(me.data, 'store manager');
  const mine = useAsync(
    () =>
      myId && reviewer
        ? client.store.reviews({ reviewerId: myId }).then(withAlgorithms)
        : Promise.resolve({ reviews: [], algorithms: new Map<number, StoreAlgorithm>() }),
    [myId, reviewer],
  );
  const waiting = useAsync(
    () =>
      manager
        ? Promise.all([
            client.store.list({ status: 'awaiting reviewer assignment', perPage: 100 }),
            client.store.list({ status: 'under review', perPage: 100 }),
            client.store.users(),
            client.store.reviews({ status: 'under review' }),
          ])
        : Promise.resolve(null),
    [manager],
  );
  if (me.error)
    return (
      <section>
        <h1>Reviews</h1>
        <ErrorBox error={me.error} />
      </section>
    );
  if (!me.data) return <Progress label="Loading your store roles…" />;
  const open = (mine.data?.reviews ?? []).filter((r) => r.status === 'under review');
  const past = (mine.data?.reviews ?? []).filter((r) => r.status !== 'under review');
  const reload = (): void => {
    mine.reload();
    waiting.reload();
  };
  return (
    <section>
      <h1>Reviews</h1>
      <p>
        Your store roles: {me.data.roles.join(', ') || 'none'}.{' '}
        {!reviewer && !manager
          ? 'Reviews are done by reviewers, whom a store manager assigns; ask one for the reviewer role.'
          : null}
      </p>
      <ErrorBox error={mine.error} />
      {reviewer ? (
        <>
          <h2>Assigned to you</h2>
          {decided ? <Notice>{decided}</Notice> : null}
          {mine.loading && !mine.data ? <Progress label="Loading your reviews…" /> : null}
          {mine.data && open.length === 0 ? <p>No review waits for you.</p> : null}
          {open.map((r) => {
            const a = mine.data?.algorithms.get(r.algorithm_id);
            return (
              <article key={r.id} className="card" aria-label={`Review of ${nameOf(a, r.algorithm_id)}`}>
                <h3>
                  <Link to={`/store/algorithm/${r.algorithm_id}`}>{nameOf(a, r.algorithm_id)}</Link>
                </h3>
                {a ? (
                  <p>
                    <code className="mono break">
                      {a.image}
                      {a.digest ? `@${a.digest}` : ' (no digest: it cannot be approved)'}
                    </code>{' '}
                    · <a href={a.code_url}>code</a>
                  </p>
                ) : null}
                <p>
                  Assigned by {personName(r.requested_by)} on {formatTime(r.requested_at)}. Read the code and
                  the functions before you decide.
                </p>
                <ReviewDecision
                  review={r}
                  onDone={(outcome) => {
                    setDecided(`${nameOf(a, r.algorithm_id)}: ${outcome}`);
                    reload();
                  }}
                />
              </article>
            );
          })}
          {past.length > 0 ? (
            <>
              <h2>Your past reviews</h2>
              <ul>
                {past.map((r) => (
                  <li key={r.id}>
                    <Link to={`/store/algorithm/${r.algorithm_id}`}>
                      {nameOf(mine.data?.algorithms.get(r.algorithm_id), r.algorithm_id)}
                    </Link>
                    : <StoreStatus value={r.status} /> {formatTime(r.submitted_at)}
                    {r.comment ? ` “${r.comment}”` : ''}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </>
      ) : null}
      {manager ? (
        <>
          <h2>Algorithms in review</h2>
          <ErrorBox error={waiting.error} />
          {waiting.loading && !waiting.data ? <Progress label="Loading algorithms in review…" /> : null}
          {waiting.data && waiting.data[0].length + waiting.data[1].length === 0 ? (
            <p>No algorithm waits for a review.</p>
          ) : null}
          {waiting.data
            ? [...waiting.data[0], ...waiting.data[1]].map((a) => {
                const [, , users, reviews] = waiting.data!;
                const onIt = reviews.filter((r) => r.algorithm_id === a.id);
                return (
                  <article key={a.id} className="card" aria-label={`${nameOf(a, a.id)} in review`}>
                    <h3>
                      <Link to={`/store/algorithm/${a.id}`}>{nameOf(a, a.id)}</Link>{' '}
                      <StoreStatus value={a.status} />
                    </h3>
                    <p>
                      Reviewing now:{' '}
                      {onIt.length === 0 ? 'nobody' : onIt.map((r) => personName(r.reviewer)).join(', ')}.
                    </p>
                    <AssignReviewer
                      algorithm={a}
                      reviewers={users.filter((u) => u.roles.includes('reviewer'))}
                      taken={onIt.map((r) => r.reviewer.id)}
                      onDone={reload}
                    />
                  </article>
                );
              })
            : null}
        </>
      ) : null}
    </section>
  );
}
