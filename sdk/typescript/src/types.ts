/**
 * The shapes of Aurra's API in TypeScript: camelCase here, snake_case on the wire.
 *
 * Results are plain objects. Timestamps in results are the server's RFC 3339
 * strings, unchanged: they carry microseconds, which a `Date` would round away
 * (and `knownAt` queries are exact to the microsecond). Inputs take a `Date` or
 * an RFC 3339 string wherever the API takes a time.
 *
 * Enumerated values are typed as their known literals plus `string`, so a value
 * a newer server adds never breaks an older client.
 */

/** A time the API accepts: a `Date`, or an RFC 3339 string with a zone (`2026-04-01T00:00:00Z`). */
export type TimeInput = Date | string;

/** A known literal, or any other string a newer server may send. */
export type OpenEnum<T extends string> = T | (string & {});

/** JSON-compatible metadata of a memory, at most 8 KiB once encoded. Its keys are sent as given. */
export type Metadata = Record<string, unknown>;

/** `expired`: the memory's own `validTo` (its write's expiry) has passed, without a successor. */
export type MemoryStatus = OpenEnum<"current" | "superseded" | "expired">;

/** What the classifier said about a candidate. */
export type Verdict = OpenEnum<"contradicts" | "supplements" | "duplicate" | "new_fact">;

/** Why automatic supersession did not consult the classifier, or why its answer could not be used. */
export type SkippedReason = OpenEnum<
  | "level_2_disabled_by_env"
  | "auto_supersede_off"
  | "excluded_category"
  | "no_candidates"
  | "classifier_error"
  | "budget_exhausted"
>;

/** Why a classifier decision was not acted on. */
export type NotActedReason = OpenEnum<
  "below_min_confidence" | "not_contradicts" | "reverted_before" | "later_fact_exists"
>;

export type AuditEventType = OpenEnum<
  | "auto_supersede"
  | "manual_supersede"
  | "duplicate_rejected"
  | "revert"
  | "settings_updated"
  | "supersession_proposed"
  | "proposal_approved"
  | "proposal_dismissed"
  | "erasure"
>;

/** The state of a `supersession_proposed` event, derived from the events that followed it. */
export type ProposalStatus = OpenEnum<"open" | "approved" | "dismissed">;

export type MessageRole = OpenEnum<"user" | "assistant" | "system">;

/**
 * Where a memory came from: a conversation (`type` "conversation", its `conversationId`, the
 * 0-based `messageIndexes` of the messages the fact came from and the `quote`d span), or what a
 * content write named (`type`, `id`, `uri`).
 */
export interface Source {
  type: string;
  id: string | null;
  conversationId: string | null;
  messageIndexes: number[] | null;
  quote: string | null;
  uri: string | null;
}

/** One fact, with its valid time (`validFrom`/`validTo`) and its transaction time (`recordedAt`). */
export interface Memory {
  id: string;
  content: string;
  /** The category the safety gate reads: `^[a-z0-9_]{1,64}$`, default `general`. */
  topic: string;
  metadata: Metadata;
  /** When the fact became true in the world. */
  validFrom: string;
  /** When it stopped being true; null while it still is. */
  validTo: string | null;
  supersededBy: string | null;
  supersedes: string | null;
  /** When Aurra recorded this version (transaction time), to the microsecond. */
  recordedAt: string;
  status: MemoryStatus;
  /** The end user this memory belongs to inside the tenant; null when the write gave none. */
  userId: string | null;
  /** The agent this memory belongs to inside the tenant; null when the write gave none. */
  agentId: string | null;
  /** The audit event that superseded this memory ("why was it retired?"); null while current. */
  supersededEventId: string | null;
  /** Where it came from; null when its write named nothing. */
  source: Source | null;
  /** Cosine similarity to the query: only on `memories.search` results. */
  score?: number;
  /** The fused score (meaning, shared words and kinds) search results are ordered by: only on `memories.search` results. */
  relevance?: number;
}

/** One recorded state of a memory's validity, and when Aurra recorded it. */
export interface MemoryVersion {
  recordedAt: string;
  recordedTo: string | null;
  validFrom: string | null;
  validTo: string | null;
  supersededBy: string | null;
  supersedes: string | null;
  status: MemoryStatus | null;
}

/** The receipt of the model calls one write made. */
export interface Usage {
  modelCalls: number;
  /** As the provider reported them; null when it did not say. */
  inputTokens: number | null;
  outputTokens: number | null;
  /** Read from and written to the provider's prompt cache, apart from inputTokens; null when it did not say. */
  cacheReadInputTokens: number | null;
  cacheCreationInputTokens: number | null;
  latencyMs: number;
  /** At the model's published price; 0 for the offline classifier, null for a model without a known price. */
  costUsd: number | null;
}

/** The strongest verdict the classifier returned, acted on or not. */
export interface Decision {
  candidateId: string;
  classifier: Verdict;
  confidence: number;
  reason: string | null;
  model: string | null;
  /** Null when the decision was acted on, else why not. */
  notActedReason: NotActedReason | null;
}

/** What Aurra did: the memory it superseded, and why. */
export interface Supersession {
  supersededId: string;
  classifier: Verdict;
  confidence: number;
  reason: string | null;
  model: string | null;
  auditEventId: string | null;
}

/**
 * `"pending"`: the write asked for `autoSupersede: "async"` (or the key's `autoSupersedeMode` is
 * `"async"`): it is stored, and its classification runs later as job `jobId`.
 */
export type AutoSupersedeStatus = OpenEnum<"pending">;

/** How automatic supersession went for one write. */
export interface AutoSupersedeResult {
  /** True when the classifier was called (false while a decision is pending). */
  ran: boolean;
  /** Null when the classifier answered. */
  skippedReason: SkippedReason | null;
  candidatesExamined: number;
  decision: Decision | null;
  /** Set only when Aurra acted: `contradicts` at or above the key's `minConfidence`. */
  supersession: Supersession | null;
  /**
   * Set when a `contradicts` below `minConfidence` (and at or above `proposalMinConfidence`) was
   * queued for review instead: its `auditEventId` is the `supersession_proposed` event to approve or dismiss.
   */
  proposal: Supersession | null;
  /** The write's receipt when its classification reached a model, else null. */
  usage: Usage | null;
  /**
   * `"pending"` when the decision comes later (asynchronous Level 2): it arrives as an audit event
   * and a change event (`memory.superseded`, `proposal.created` or `auto_supersede.completed`).
   * Null from a synchronous write.
   */
  status: AutoSupersedeStatus | null;
  /** The pending classification's job; null unless `status` is `"pending"`. */
  jobId: string | null;
}

/** The answer to a write of one fact. */
export interface WriteResult {
  /** False when the fact was a duplicate: nothing was written, `memory` is the existing one. */
  created: boolean;
  memory: Memory;
  autoSupersede: AutoSupersedeResult;
  /** The existing memory's id when the fact was a duplicate, else null. */
  duplicateOf: string | null;
}

/** How a conversation was turned into facts. */
export interface Extraction {
  extractor: string;
  model: string | null;
  factsFound: number;
  promptVersion: string | null;
  usage: Usage | null;
  /** Facts found beyond the cap of 50 a request, not stored (0 from servers that do not send it). */
  factsDropped: number;
  /** The conversation the facts came from: the one given, or the one Aurra generated. */
  conversationId: string | null;
}

/** The answer to a write of `messages`: one write result per fact, in the conversation's order. */
export interface MessagesWriteResult {
  facts: WriteResult[];
  extraction: Extraction;
}

/** The answer to `memories.addBatch`: one write result per fact, in the order given. */
export interface BatchWriteResult {
  results: WriteResult[];
}

/** The answer to `memories.supersede`: the new memory and the one it replaced. */
export interface SupersedeResult {
  memory: Memory;
  superseded: Memory;
}

/** A memory's supersession lineage (`chain`, oldest first) and its recorded `versions`. */
export interface HistoryResult {
  memoryId: string;
  chain: Memory[];
  versions: MemoryVersion[];
}

/**
 * What a write carrying credentials (API keys, private keys, passwords, card numbers, tokens)
 * gets: `"redact"`, each replaced by `[REDACTED:<kind>]` before anything is stored or sent to a
 * model; `"refuse"`, a `ValidationError` whose `code` is `"sensitive_content"`, nothing stored.
 */
export type SecretsMode = "redact" | "refuse";

/**
 * When a write's automatic supersession runs: `"sync"`, before the write answers; `"async"`,
 * after it (the write answers at once with a pending `autoSupersede` block).
 */
export type AutoSupersedeMode = "sync" | "async";

/** What a write asks of automatic supersession: on, off, on but later (`"async"`), or null/absent for the key's default. */
export type AutoSupersedeInput = boolean | "async" | null;

/** One webhook as the settings read it: the secret is write-only, `secretSet` says there is one. */
export interface Webhook {
  url: string;
  events: ChangeEventType[];
  secretSet: boolean;
}

/** One webhook as `settings.update` sets it. */
export interface WebhookInput {
  /** https (http and local addresses only on `aurra dev`), at most 2,048 characters. */
  url: string;
  /** The change event types to send, at least one. */
  events: ChangeEventType[];
  /**
   * `whsec_` then the base64 of 24 to 64 random bytes; required for a new URL, and may be left
   * out for a URL the key already has (it keeps its secret). Never read back.
   */
  secret?: string;
}

/** The settings of the API key in use. */
export interface Settings {
  /** What a write does when it does not say `autoSupersede`. */
  autoSupersedeDefault: boolean;
  /** Topics that never reach the classifier and are never superseded automatically. */
  excludedCategories: string[];
  /** Aurra acts on `contradicts` only at or above this; never below the server's floor of 0.85. */
  minConfidence: number;
  /** One of the deployment's Claude models. */
  classifierModel: string;
  /** `contradicts` verdicts from here up to `minConfidence` become proposals; null: no proposals. */
  proposalMinConfidence: number | null;
  /** Model calls allowed per UTC day; null: no limit. */
  dailyModelCallsLimit: number | null;
  /** What a write carrying credentials gets (`"redact"` on a server from before the setting). */
  secrets: SecretsMode;
  /** What the model calls may cost per UTC day, in US dollars; null: no limit. */
  dailyModelCostLimitUsd: number | null;
  /** Days what is no longer current is kept (then erased); null: for ever. */
  historyRetentionDays: number | null;
  /** Days any memory is kept (then erased); null: for ever. */
  memoryRetentionDays: number | null;
  /** When automatic supersession runs (`"sync"` on a server from before the setting). */
  autoSupersedeMode: AutoSupersedeMode;
  /** Where the change stream is pushed (`[]` on a server from before webhooks). */
  webhooks: Webhook[];
}

/** One append-only audit record. */
export interface AuditEvent {
  id: string;
  type: AuditEventType;
  createdAt: string;
  apiKeyId: string | null;
  memoryId: string | null;
  supersededId: string | null;
  classifier: Verdict | null;
  confidence: number | null;
  reason: string | null;
  model: string | null;
  candidatesExamined: number | null;
  /** Free-form details, with the keys as the server wrote them. */
  details: Record<string, unknown>;
  /** Set on `supersession_proposed` events only. */
  status: ProposalStatus | null;
}

/** The answer to `audit.revert`: the `revert` event and the memory made current again. */
export interface RevertResult {
  event: AuditEvent;
  restored: Memory;
}

/** The answer to `audit.approve`: the `proposal_approved` event, the new memory and the one it replaced. */
export interface ApproveResult {
  event: AuditEvent;
  memory: Memory;
  superseded: Memory;
}

/** The answer to `audit.dismiss`: the `proposal_dismissed` event. */
export interface DismissResult {
  event: AuditEvent;
}

/** The records an erasure touched, by kind. */
export interface ErasureCounts {
  memories: number;
  versions: number;
  auditEvents: number;
  proposals: number;
  idempotencyRecords: number;
}

/** One change event's delivery to one webhook URL (`webhooks.deliveries`): never the event's body. */
export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: string;
  memoryId: string | null;
  url: string;
  /** `pending` (with `nextAttemptAt`), `delivered` or `dead` (retried 24 hours, then given up). */
  status: WebhookDeliveryStatus;
  attempts: number;
  createdAt: string;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
}

export type WebhookDeliveryStatus = "pending" | "delivered" | "dead";

/** One page of `webhooks.deliveries`, newest event first. */
export interface WebhookDeliveryPage {
  deliveries: WebhookDelivery[];
  nextCursor: string | null;
}

/** Filters of `webhooks.deliveries`. */
export interface WebhookDeliveryListParams {
  status?: WebhookDeliveryStatus;
  /** 1..100, default 50. */
  limit?: number;
  cursor?: string;
}

/**
 * One asynchronous Level 2 decision (`jobs.get`, `jobs.list`): ids and outcome, never content.
 * An erased memory's job still lists, with its scope.
 */
export interface Job {
  id: string;
  memoryId: string;
  /** The scope of the job's memory. */
  userId: string | null;
  agentId: string | null;
  /** `pending` (waiting for a worker), `running` (a worker holds it now) or `done`. */
  status: JobStatus;
  /** How many times a worker took it; after 5 failures it is given up (`outcome: "failed"`). */
  attempts: number;
  createdAt: string;
  completedAt: string | null;
  /** Null until done; then `superseded`, `proposed`, `not_acted`, `candidate_changed`, ... */
  outcome: string | null;
  /** The audit event of the decision, when one was recorded. */
  auditEventId: string | null;
}

export type JobStatus = OpenEnum<"pending" | "running" | "done">;

export interface JobPage {
  jobs: Job[];
  nextCursor: string | null;
}

/** Filters of `jobs.list`. */
export interface JobListParams {
  /** `pending`: not decided yet (running ones included); `done`; absent: all. */
  status?: "pending" | "done";
  memoryId?: string;
  userId?: string;
  /** Page size, 1..100 (default 50). */
  limit?: number;
}

export interface JobListPageParams extends JobListParams {
  cursor?: string | null;
}

/**
 * Where the tenant's new memories are indexed: "shared"; "deferred" (an announced import's
 * memories enter no index until the tenant's own is built; searches read them exactly meanwhile);
 * "building"; or "own".
 */
export type ImportIndexingState = OpenEnum<"shared" | "deferred" | "building" | "own">;

/** The answer of `imports.announce`, `imports.buildIndex` and `imports.indexing`: the state, and why. */
export interface ImportIndexing {
  indexing: ImportIndexingState;
  reason: string;
}

/** The receipt of an erasure: what it selected (as the server wrote it, snake_case), when, and what it touched. */
export interface ErasureReceipt {
  id: string;
  selector: Record<string, unknown>;
  createdAt: string;
  counts: ErasureCounts;
  /**
   * "completed", or "running" while a large erasure is between its batches (its counts so far):
   * call `erasures.create` with the same selector again to go on until it is "completed". A
   * server that predates batched erasures sends none: read as "completed".
   */
  status: ErasureStatus;
  /**
   * On `erasures.create`: true when this call erased (201, or 202 for a large erasure still
   * running), false when the same selector had been erased already and nothing new matched (200,
   * the earlier receipt). Null on `erasures.get`.
   */
  created: boolean | null;
}

export type ErasureStatus = "completed" | "running";

/** One page of memories. */
export interface MemoryPage {
  memories: Memory[];
  /** Pass back as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
}

/** One page of audit events, newest first. */
export interface AuditPage {
  events: AuditEvent[];
  nextCursor: string | null;
}

/**
 * What each change event's `data` holds: ids and small codes, never a memory's content. Keys
 * are camelCase here (`superseded_by` on the wire is `supersededBy`).
 */
export interface ChangeEventData {
  /** A memory was written; `supersedes` / `supersededBy` when it was stored linked to another. */
  "memory.created": { supersedes?: string; supersededBy?: string };
  /** A memory was retired (`memoryId`) by `supersededBy`; `eventId` is the audit event. */
  "memory.superseded": { supersededBy: string; eventId: string; by: OpenEnum<"auto" | "manual" | "approval"> };
  /** A supersession was undone: `memoryId` is current again. */
  "memory.reverted": { eventId: string; revertedEventId: string; wasSupersededBy: string };
  /**
   * Something was queued for review. `kind` "supersession": a contradiction, `memoryId` would be
   * superseded by `proposedBy`. `kind` "dependency": `memoryId` rested on the value of
   * `supersededId`, which `proposedBy` replaced, and may be stale. (`kind` is absent on events
   * recorded before the server said it: those are supersessions.)
   */
  "proposal.created": {
    eventId: string;
    proposedBy: string;
    kind?: OpenEnum<"supersession" | "dependency">;
    supersededId?: string;
  };
  /** A proposal was approved or dismissed; `kind` as in its `proposal.created`. */
  "proposal.resolved": {
    eventId: string;
    proposalId: string;
    resolution: OpenEnum<"approved" | "dismissed">;
    kind?: OpenEnum<"supersession" | "dependency">;
  };
  /** Level 2 ran on a write (`memoryId`) and acted on nothing. */
  "auto_supersede.completed": { candidatesExamined: number };
  /** A write (`memoryId`) was stored without Level 2: the key's daily model calls were used up. */
  "budget.exhausted": { apiKeyId: string };
  /** Reserved for erasures (not sent yet). */
  "erasure.completed": Record<string, unknown>;
}

/** The change stream's event types. */
export type ChangeEventType = keyof ChangeEventData;

/** One change of the stream (`events.list`) or of a webhook, of type `T`. */
export interface ChangeEventOf<T extends ChangeEventType> {
  /** The event's own id, stable: a webhook delivery carries it as `webhook-id` (drop repeats by it). */
  id: string;
  type: T;
  /** When the change committed, rising along the stream. */
  createdAt: string;
  /** The scope of the event's memory. */
  userId: string | null;
  agentId: string | null;
  memoryId: string | null;
  data: ChangeEventData[T];
}

/**
 * One change of the stream, narrowed by `type`: `if (e.type === "memory.superseded") e.data.supersededBy`.
 * A type this SDK does not know yet (from a newer server) arrives all the same, with its `data`
 * keys camelCased: switch on `type` with a default.
 */
export type ChangeEvent = { [T in ChangeEventType]: ChangeEventOf<T> }[ChangeEventType];

/** One page of the change stream, oldest first. */
export interface ChangeEventPage {
  events: ChangeEvent[];
  /** Always given, also on an empty page: pass it back as `after` for what committed since. */
  nextCursor: string;
}

// ---- inputs ----------------------------------------------------------------

/** One message of a conversation to extract facts from. */
export interface MessageInput {
  role: MessageRole;
  content: string;
  /** When it was said: the `validFrom` of the facts it states. */
  createdAt?: TimeInput;
}

interface WriteOptions {
  /** `^[a-z0-9_]{1,64}$`; default `general`. With `messages`, applies to every fact found. */
  topic?: string;
  /** The end user inside your tenant (1..128 of `[A-Za-z0-9._:@-]`). */
  userId?: string;
  /** The agent inside your tenant (1..128 of `[A-Za-z0-9._:@-]`). */
  agentId?: string;
  metadata?: Metadata;
  /** When the fact became true; default now. */
  validFrom?: TimeInput;
  /** When it stops being true by itself (later than `validFrom`): current until then, `expired` after. */
  validTo?: TimeInput;
  /**
   * true or false; `"async"`: on, but the write answers at once and the decision comes later
   * (`autoSupersede.status` `"pending"`); absent or null uses the key's `autoSupersedeDefault`.
   */
  autoSupersede?: AutoSupersedeInput;
  /** Sent as `Idempotency-Key` (1..128 characters); one is generated per call when absent. */
  idempotencyKey?: string;
}

/** Write one fact. */
export interface AddFactParams extends WriteOptions {
  /** 1..4000 characters after trimming. */
  content: string;
  /** Where the fact came from: `type` and `id` 1..128 characters, `uri` an absolute URI. */
  source?: { type: string; id: string; uri?: string };
  messages?: undefined;
  conversationId?: undefined;
}

/** Write the facts a conversation states. */
export interface AddMessagesParams extends WriteOptions {
  /** 1..50 messages. */
  messages: MessageInput[];
  /** Your id of the conversation (1..128 of `[A-Za-z0-9._:@-]`); Aurra generates one when absent. */
  conversationId?: string;
  content?: undefined;
  source?: undefined;
}

export type AddParams = AddFactParams | AddMessagesParams;

/** One fact of `memories.addBatch`: a fact's fields, without `autoSupersede` (the batch's). */
export interface BatchFactInput {
  /** 1..4000 characters after trimming. */
  content: string;
  topic?: string;
  userId?: string;
  agentId?: string;
  metadata?: Metadata;
  validFrom?: TimeInput;
  /** When it stops being true by itself (later than `validFrom`): current until then, `expired` after. */
  validTo?: TimeInput;
  /** Where the fact came from: `type` and `id` 1..128 characters, `uri` an absolute URI. */
  source?: { type: string; id: string; uri?: string };
}

/** Write 1..100 facts as one unit. */
export interface AddBatchParams {
  facts: BatchFactInput[];
  /** For the whole batch: true, false or `"async"`; absent or null uses the key's `autoSupersedeDefault`. */
  autoSupersede?: AutoSupersedeInput;
  /** Sent as `Idempotency-Key` (1..128 characters); one is generated per call when absent. */
  idempotencyKey?: string;
}

/** Filters of `memories.list` and `memories.search`. */
export interface MemoryListParams {
  topic?: string;
  userId?: string;
  agentId?: string;
  /** Only memories extracted from this conversation. */
  conversationId?: string;
  /** Only memories whose `source.id` is this. */
  sourceId?: string;
  /** Valid time: what was true then. Default now. */
  asOf?: TimeInput;
  /** Transaction time: as Aurra knew it then. Default now. */
  knownAt?: TimeInput;
  includeSuperseded?: boolean;
  /** Page size, 1..100 (default 20). */
  limit?: number;
}

export interface MemoryListPageParams extends MemoryListParams {
  cursor?: string | null;
}

/** Point in time of `memories.get` and `memories.history`. */
export interface MemoryAtParams {
  asOf?: TimeInput;
  knownAt?: TimeInput;
}

/** Replace a memory by a new fact. */
export interface SupersedeWithContentParams {
  content: string;
  topic?: string;
  validFrom?: TimeInput;
  metadata?: Metadata;
  supersededBy?: undefined;
  idempotencyKey?: string;
}

/** Replace a memory by a memory that already exists. */
export interface SupersedeByExistingParams {
  supersededBy: string;
  content?: undefined;
  topic?: undefined;
  validFrom?: undefined;
  metadata?: undefined;
  idempotencyKey?: string;
}

export type SupersedeParams = SupersedeWithContentParams | SupersedeByExistingParams;

/** Any subset of the settings; at least one. */
export interface SettingsUpdateParams {
  autoSupersedeDefault?: boolean;
  excludedCategories?: string[];
  /** Within [0.85, 1.0]. */
  minConfidence?: number;
  /** One of the deployment's Claude models (`claude-...`); any other is a `ValidationError`. */
  classifierModel?: string;
  /** null (no proposals) or within [0, minConfidence). */
  proposalMinConfidence?: number | null;
  /** null (no limit) or an integer >= 0. */
  dailyModelCallsLimit?: number | null;
  secrets?: SecretsMode;
  /** null (no limit) or dollars >= 0. */
  dailyModelCostLimitUsd?: number | null;
  /** null (for ever) or an integer >= 1. */
  historyRetentionDays?: number | null;
  /** null (for ever) or an integer >= 1. */
  memoryRetentionDays?: number | null;
  autoSupersedeMode?: AutoSupersedeMode;
  /** The whole list (at most 5), replacing the key's; `[]` removes them all. */
  webhooks?: WebhookInput[];
}

/** Filters of `audit.list`. */
export interface AuditListParams {
  memoryId?: string;
  type?: AuditEventType;
  userId?: string;
  /** Events recorded by writes from this conversation, and erasures of it. */
  conversationId?: string;
  /** Events recorded by writes of this source, and erasures of it. */
  sourceId?: string;
  /** Of `supersession_proposed` events: `open` is the review queue. */
  status?: ProposalStatus;
  since?: TimeInput;
  until?: TimeInput;
  /** Page size, 1..100 (default 50). */
  limit?: number;
}

export interface AuditListPageParams extends AuditListParams {
  cursor?: string | null;
}

/**
 * Exactly one selector: a memory's whole lineage (`memoryId`), a user's memories (`userId`,
 * with `agentId` that agent's only), a conversation's, a source's, or the whole tenant.
 */
export interface ErasureCreateParams {
  memoryId?: string;
  userId?: string;
  agentId?: string;
  conversationId?: string;
  sourceId?: string;
  tenant?: true;
}

/** Options of `imports.announce`. */
export interface ImportAnnounceParams {
  /** Whether the import's writes ask for automatic supersession (default false). */
  autoSupersede?: boolean;
  /** The most facts the import writes to any one scope (user and agent); 1 to `facts`. */
  largestScope?: number;
}

/** Params of the POST calls on an audit event. */
export interface AuditActionParams {
  idempotencyKey?: string;
}

/** Filters of `events.list`. */
export interface EventListParams {
  /** A `nextCursor` from before: the events committed after it. Absent: from the oldest kept. */
  after?: string | null;
  /** Only these types (a cursor belongs to its `types`). */
  types?: ChangeEventType[];
  /** Page size, 1..500 (default 100). */
  limit?: number;
}

/** Per-call options, on every method. */
export interface RequestOptions {
  /** Abort the call (and its retries). */
  signal?: AbortSignal;
  /** Milliseconds per attempt; overrides the client's `timeout`. */
  timeout?: number;
  /** Overrides the client's `maxRetries`. */
  maxRetries?: number;
}

/** One response of `client.exportPage`: its records (each with a `kind`) and the next cursor (null: done). */
export interface ExportPage {
  records: Record<string, unknown>[];
  nextCursor: string | null;
}

/** Filters of `client.export` and `client.exportPage`. */
export interface ExportParams {
  /** Only this user's memories and their audit events. */
  userId?: string;
  /** Records per response, 1..5000. */
  limit?: number;
  /** The `nextCursor` of the previous response. */
  cursor?: string | null;
}
