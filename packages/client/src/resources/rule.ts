import type { Page, Rule } from '../types.js';
import { ResourceGroup, type ListOptions } from './base.js';

/** Filters of `GET /rule` (exact matches). */
export interface RuleFilters {
  /** The resource the rule governs: `user`, `task`, `node`, … */
  name?: string;
  operation?: Rule['operation'];
  scope?: Rule['scope'];
  /** Rules in this role. */
  roleId?: number;
}

/** `client.rule`: the fixed catalogue of rules (read only). */
export class RuleResource extends ResourceGroup {
  /** Lists rules, reading every page unless `options.page` is given. */
  list(filters?: RuleFilters, options?: ListOptions): Promise<Rule[]> {
    return this.listAt('/rule', filters, options);
  }

  /** Reads one page of rules with the total count. */
  listPage(filters?: RuleFilters, options?: { page?: number; perPage?: number }): Promise<Page<Rule>> {
    return this.pageAt('/rule', filters, options);
  }

  /** Reads one rule. @throws NotFoundError when it does not exist. */
  get(id: number): Promise<Rule> {
    return this.getJson(`/rule/${id}`);
  }

  /** Finds the id of a rule by resource, operation and scope (e.g. `('task', 'CREATE', 'ORGANIZATION')`). */
  async find(name: string, operation: Rule['operation'], scope: Rule['scope']): Promise<Rule | undefined> {
    const [rule] = await this.list({ name, operation, scope });
    return rule;
  }
}
