/**
 * The statuses of algorithms and reviews, as vantage6's store writes them (so its clients read them): an
 * algorithm taken out of use by a store manager is `removed`; a replaced, rejected or removed one has an
 * `invalidated_at` time.
 */
export const ALGORITHM_STATUS = {
  awaiting: 'awaiting reviewer assignment',
  underReview: 'under review',
  approved: 'approved',
  rejected: 'rejected',
  replaced: 'replaced',
  removed: 'removed',
} as const;

export const ALGORITHM_STATUSES: readonly string[] = Object.values(ALGORITHM_STATUS);

export const REVIEW_STATUS = {
  underReview: 'under review',
  approved: 'approved',
  rejected: 'rejected',
  dropped: 'dropped',
} as const;
