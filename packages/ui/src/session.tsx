/** Who is logged in: the user, their organization and their rules (to show only what they may do). */
import { createContext, useContext } from 'react';
import type { Rule, User } from '@federa/client';

export interface Me {
  user: User;
  rules: Rule[];
  /** Whether the user holds every rule (the root role): what the server asks of audit-log readers. */
  root: boolean;
  /** Whether a rule for `name` with `operation` exists at any scope (or at one of `scopes`). */
  can(name: string, operation: Rule['operation'], scopes?: Rule['scope'][]): boolean;
}

export function makeMe(user: User, rules: Rule[], root = false): Me {
  return {
    user,
    rules,
    root,
    can: (name, operation, scopes) =>
      rules.some(
        (r) => r.name === name && r.operation === operation && (!scopes || scopes.includes(r.scope)),
      ),
  };
}

export const MeContext = createContext<Me | null>(null);

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside a logged-in page');
  return me;
}
