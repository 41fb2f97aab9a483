// Names of contacts read lately (a page of campaign recipients is named from
// here first): one workspace's, held by its runtime and given to each core it
// makes, so a workspace reconnected to another messaging account (a new
// runtime) never shows the old account's names, and no two workspaces share
// them (issue 38 §3: a cache belongs to its owner, not to the module).

/** The most names kept; the oldest is dropped first. */
const MAX = 5_000;

export class ContactNames {
  readonly #names = new Map<number, string>();

  get(id: number): string | undefined {
    return this.#names.get(id);
  }

  set(id: number, name: string): void {
    this.#names.delete(id);
    if (this.#names.size >= MAX) this.#names.delete(this.#names.keys().next().value as number);
    this.#names.set(id, name);
  }
}
