// The organization and its channels (GET /me, and the channel of a template,
// message or campaign). Seeded, never written by the API.
import type { ChannelRow, OrganizationRow } from "./rows.ts";
import { SandboxTable } from "./sql.ts";

export class AccountStore extends SandboxTable {
  async isEmpty(): Promise<boolean> {
    return (await this.countRows("select count(*)::int as n from sandbox.organizations", [])) === 0;
  }

  async organization(): Promise<OrganizationRow | undefined> {
    return this.one<OrganizationRow>("select * from sandbox.organizations order by id limit 1");
  }

  async channels(): Promise<ChannelRow[]> {
    return (await this.db.query<ChannelRow>("select * from sandbox.channels order by id")).rows;
  }

  async channel(id: number): Promise<ChannelRow | undefined> {
    return this.one<ChannelRow>("select * from sandbox.channels where id = $1", [id]);
  }
}
