/** A table with a header row of column titles; the rows are the children. */
import type { ReactNode } from 'react';

export function Table(props: { head: readonly ReactNode[]; className?: string; children: ReactNode }) {
  return (
    <div className="table-box" tabIndex={0}>
      <table className={props.className ?? 'table'}>
        <thead>
          <tr>
            {props.head.map((h, i) => (
              <th key={i}>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/** A rule's resource, operation and scope, as table cells. */
export function RuleCells({ rule }: { rule: { name: string; operation: string; scope: string } }) {
  return (
    <>
      <td>{rule.name}</td>
      <td>{rule.operation}</td>
      <td>{rule.scope}</td>
    </>
  );
}
