// One workspace's stores, in one object (issue 38 §2): made once by the
// workspace's runtime (src/workspaces/runtime.ts), shared by its core, its
// listeners and its background work, as the sandbox's OrgStore is for an
// organization. Each store is made on first use and kept, so a deployment of
// a thousand workspaces holds only the stores its workspaces use.
//
// Outside src/store only the runtime builder makes one; the few runners that
// work across workspaces say why in a comment the rule test reads
// (test/architecture/stores.test.ts).
import type { WorkspaceId } from "../domain/workspace.ts";
import { Approvals } from "./approvals.ts";
import { AuditLog } from "./audit.ts";
import { AutomationStore } from "./automations.ts";
import { CampaignCards } from "./campaign-cards.ts";
import { CampaignAudiences, TestPhones } from "./campaigns.ts";
import { CardMarks } from "./card-marks.ts";
import { ChannelNames } from "./channels.ts";
import { CommandsInFlight } from "./commands-in-flight.ts";
import { Confirmations } from "./confirmations.ts";
import type { Db } from "./db.ts";
import { HeldStarts } from "./held-starts.ts";
import { HomeCounts } from "./home-counts.ts";
import { ImportStore } from "./imports.ts";
import { InboxStore } from "./inbox.ts";
import { MediaStore } from "./media.ts";
import { OwnSends, TestSends } from "./own-sends.ts";
import { ProgressStore } from "./progress.ts";
import { ReportStore } from "./reports.ts";
import { SavedReplies } from "./saved-replies.ts";
import { StepRunStore } from "./steps.ts";
import { Timers } from "./timers.ts";
import { UndeliveredOutcomes } from "./undelivered.ts";

/** The stores of one workspace: every record it keeps, and nothing of another. */
export class WorkspaceStores {
  readonly workspace: WorkspaceId;
  /** Kept private: a holder reaches the records through the stores, never the database itself. */
  readonly #db: Db;
  readonly #made = new Map<string, unknown>();

  constructor(db: Db, workspace: WorkspaceId) {
    this.#db = db;
    this.workspace = workspace;
  }

  #once<T>(name: string, make: (db: Db, workspace: WorkspaceId) => T): T {
    let store = this.#made.get(name) as T | undefined;
    if (store === undefined) {
      store = make(this.#db, this.workspace);
      this.#made.set(name, store);
    }
    return store;
  }

  get approvals(): Approvals {
    return this.#once("approvals", (db, ws) => new Approvals(db, ws));
  }
  get audit(): AuditLog {
    return this.#once("audit", (db, ws) => new AuditLog(db, ws));
  }
  get automations(): AutomationStore {
    return this.#once("automations", (db, ws) => new AutomationStore(db, ws));
  }
  get campaignCards(): CampaignCards {
    return this.#once("campaignCards", (db, ws) => new CampaignCards(db, ws));
  }
  get campaignAudiences(): CampaignAudiences {
    return this.#once("campaignAudiences", (db, ws) => new CampaignAudiences(db, ws));
  }
  get testPhones(): TestPhones {
    return this.#once("testPhones", (db, ws) => new TestPhones(db, ws));
  }
  get cardMarks(): CardMarks {
    return this.#once("cardMarks", (db, ws) => new CardMarks(db, ws));
  }
  get channels(): ChannelNames {
    return this.#once("channels", (db, ws) => new ChannelNames(db, ws));
  }
  get commandsInFlight(): CommandsInFlight {
    return this.#once("commandsInFlight", (db, ws) => new CommandsInFlight(db, ws));
  }
  get confirmations(): Confirmations {
    return this.#once("confirmations", (db, ws) => new Confirmations(db, ws));
  }
  get heldStarts(): HeldStarts {
    return this.#once("heldStarts", (db, ws) => new HeldStarts(db, ws));
  }
  /** The Home tab's last counts (their figures' type is the Home's). */
  homeCounts<T>(): HomeCounts<T> {
    return this.#once("homeCounts", (db, ws) => new HomeCounts<T>(db, ws));
  }
  get imports(): ImportStore {
    return this.#once("imports", (db, ws) => new ImportStore(db, ws));
  }
  get inbox(): InboxStore {
    return this.#once("inbox", (db, ws) => new InboxStore(db, ws));
  }
  get media(): MediaStore {
    return this.#once("media", (db, ws) => new MediaStore(db, ws));
  }
  get ownSends(): OwnSends {
    return this.#once("ownSends", (db, ws) => new OwnSends(db, ws));
  }
  get testSends(): TestSends {
    return this.#once("testSends", (db, ws) => new TestSends(db, ws));
  }
  get progress(): ProgressStore {
    return this.#once("progress", (db, ws) => new ProgressStore(db, ws));
  }
  get reports(): ReportStore {
    return this.#once("reports", (db, ws) => new ReportStore(db, ws));
  }
  get savedReplies(): SavedReplies {
    return this.#once("savedReplies", (db, ws) => new SavedReplies(db, ws));
  }
  get stepRuns(): StepRunStore {
    return this.#once("stepRuns", (db, ws) => new StepRunStore(db, ws));
  }
  /** The workspace's claimed-once timers of one kind (messages sent later, …). */
  timers<P = Record<string, unknown>>(kind: string): Timers<P> {
    return this.#once(`timers:${kind}`, (db, ws) => new Timers<P>(db, ws, kind));
  }
  get undelivered(): UndeliveredOutcomes {
    return this.#once("undelivered", (db, ws) => new UndeliveredOutcomes(db, ws));
  }
}
