// Data access of the sandbox (schema `sandbox`): one store per aggregate, as
// src/sandbox/routes/ has one file per area, reached through this facade
// (`store.contacts.list(…)`, `store.delivery.tick(…)`). Rows come back as
// stored (rows.ts); src/sandbox/shapes.ts turns them into API records.
import type { Db } from "../db.ts";
import { AccountStore } from "./account.ts";
import { CampaignsStore } from "./campaigns.ts";
import { FieldsStore, GroupsStore, TagsStore } from "./catalog.ts";
import { ContactsStore } from "./contacts.ts";
import { ChatUsersStore, ConversationsStore, MessagesStore } from "./conversations.ts";
import { Delivery } from "./delivery.ts";
import { TemplatesStore } from "./templates.ts";

export class SandboxStore {
  readonly account: AccountStore;
  readonly contacts: ContactsStore;
  readonly fields: FieldsStore;
  readonly groups: GroupsStore;
  readonly tags: TagsStore;
  readonly templates: TemplatesStore;
  readonly chatUsers: ChatUsersStore;
  readonly conversations: ConversationsStore;
  readonly messages: MessagesStore;
  readonly campaigns: CampaignsStore;
  /** The clock's work: `tick()` moves templates, messages and campaigns one step. */
  readonly delivery: Delivery;

  /** `clock` gives every time the sandbox writes (never SQL now()), so tests that move it move the sandbox. */
  readonly db: Db;
  constructor(db: Db, clock: () => Date) {
    this.db = db;
    this.account = new AccountStore(db, clock);
    this.contacts = new ContactsStore(db, clock);
    this.fields = new FieldsStore(db, clock);
    this.groups = new GroupsStore(db, clock);
    this.tags = new TagsStore(db, clock);
    this.templates = new TemplatesStore(db, clock);
    this.chatUsers = new ChatUsersStore(db, clock);
    this.conversations = new ConversationsStore(db, clock);
    this.messages = new MessagesStore(db, clock);
    this.campaigns = new CampaignsStore(db, clock);
    this.delivery = new Delivery(db, clock, this.templates, this.campaigns);
  }
}
