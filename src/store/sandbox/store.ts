// Data access of the sandbox (schema `sandbox`): one store per aggregate, as
// src/sandbox/routes/ has one file per area, reached through two facades.
// `SandboxStore` is the whole sandbox: organizations and their keys, and the
// clock's work across every organization (`store.delivery.tick(…)`).
// `store.forOrg(id)` is one organization's data (`org.contacts.list(…)`):
// every statement of it is limited to that organization. Rows come back as
// stored (rows.ts); src/sandbox/shapes.ts turns them into API records.
import type { Db } from "../db.ts";
import { AccountStore, OrgAccountStore } from "./account.ts";
import { CampaignsStore } from "./campaigns.ts";
import { FieldsStore, GroupsStore, TagsStore } from "./catalog.ts";
import { ContactsStore } from "./contacts.ts";
import { ChatUsersStore, ConversationsStore, MessagesStore } from "./conversations.ts";
import { Delivery } from "./delivery.ts";
import { TemplatesStore } from "./templates.ts";

/** One organization's data: what a request with one of its keys may see and change. */
export class OrgStore {
  /** The organization's id. */
  readonly org: number;
  readonly account: OrgAccountStore;
  readonly contacts: ContactsStore;
  readonly fields: FieldsStore;
  readonly groups: GroupsStore;
  readonly tags: TagsStore;
  readonly templates: TemplatesStore;
  readonly chatUsers: ChatUsersStore;
  readonly conversations: ConversationsStore;
  readonly messages: MessagesStore;
  readonly campaigns: CampaignsStore;
  readonly db: Db;
  constructor(db: Db, clock: () => Date, org: number) {
    this.db = db;
    this.org = org;
    this.account = new OrgAccountStore(db, clock, org);
    this.contacts = new ContactsStore(db, clock, org);
    this.fields = new FieldsStore(db, clock, org);
    this.groups = new GroupsStore(db, clock, org);
    this.tags = new TagsStore(db, clock, org);
    this.templates = new TemplatesStore(db, clock, org);
    this.chatUsers = new ChatUsersStore(db, clock, org);
    this.conversations = new ConversationsStore(db, clock, org);
    this.messages = new MessagesStore(db, clock, org);
    this.campaigns = new CampaignsStore(db, clock, org);
  }
}

export class SandboxStore {
  /** Organizations and their keys. */
  readonly account: AccountStore;
  /** The clock's work: `tick()` moves templates, messages and campaigns of every organization one step. */
  readonly delivery: Delivery;

  /** `clock` gives every time the sandbox writes (never SQL now()), so tests that move it move the sandbox. */
  readonly db: Db;
  private readonly clock: () => Date;
  constructor(db: Db, clock: () => Date) {
    this.db = db;
    this.clock = clock;
    this.account = new AccountStore(db, clock);
    this.delivery = new Delivery(db, clock, (org) => new CampaignsStore(db, clock, org));
  }

  /** Organization `org`'s data (a few small objects: made per request). */
  forOrg(org: number): OrgStore {
    return new OrgStore(this.db, this.clock, org);
  }
}
