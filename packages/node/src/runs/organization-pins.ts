/**
 * The organizations named in a node's `allowed_organizations` (docs/node-protocol.md#policies). The server looks names up
 * with SQL LIKE (case-insensitive on SQLite; `_` and `%` are wildcards) and an organization may rename itself, so
 * a name found by the server at the moment a task arrives could be another organization's new name. A name is
 * therefore resolved once, at the node's start, by exact match, and pinned to that organization's id: afterwards
 * it allows that id only, and only while the organization still carries exactly that name. A name that matched no
 * organization or several at the start allows nobody until the node restarts.
 */
import type { Logger } from 'pino';

export interface NamedOrganization {
  readonly id: number;
  readonly name: string | null;
}

/** The organizations the server answers for `GET /organization?name=<name>` (a LIKE pattern there). */
export type OrganizationsNamed = (name: string) => Promise<readonly NamedOrganization[]>;

const exactly = (orgs: readonly NamedOrganization[], name: string): NamedOrganization[] =>
  orgs.filter((o) => o.name === name);

export class OrganizationPins {
  private constructor(
    private readonly pins: ReadonlyMap<string, number | null>,
    private readonly lookup: OrganizationsNamed,
  ) {}

  /** Resolves each name of `names` by exact match and pins it; a name that is not one organization is logged. */
  static async pin(
    names: readonly string[],
    lookup: OrganizationsNamed,
    log?: Logger,
  ): Promise<OrganizationPins> {
    const pins = new Map<string, number | null>();
    for (const name of new Set(names)) {
      const found = exactly(await lookup(name), name);
      const [only] = found;
      pins.set(name, found.length === 1 && only ? only.id : null);
      if (found.length === 1) continue;
      log?.warn(
        { event: 'policy.organization_unresolved', organization: name, matches: found.map((o) => o.id) },
        found.length === 0
          ? `allowed_organizations names "${name}", which is no organization's exact name: it allows nobody until the node restarts`
          : `allowed_organizations names "${name}", which several organizations carry: it allows nobody; name them by id`,
      );
    }
    return new OrganizationPins(pins, lookup);
  }

  /** The ids `name` allows now: its pinned organization while that still carries exactly `name`; else none. */
  async idsFor(name: string): Promise<number[]> {
    const id = this.pins.get(name);
    if (id === undefined || id === null) return [];
    return exactly(await this.lookup(name), name).some((o) => o.id === id) ? [id] : [];
  }
}
