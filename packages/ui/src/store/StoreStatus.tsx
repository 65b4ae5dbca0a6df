/** An algorithm's or a review's status in the store, coloured by what it means for a researcher. */
const CLASS: Record<string, string> = {
  approved: 'ok',
  rejected: 'bad',
  removed: 'bad',
  replaced: 'off',
  dropped: 'off',
};

export function StoreStatus({ value }: { value: string }) {
  return <span className={`status status-${CLASS[value] ?? 'wait'}`}>{value}</span>;
}
