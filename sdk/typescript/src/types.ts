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

export type MemoryStatus = OpenEnum<"current" | "superseded">;

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

/** How automatic supersession went for one write. */
export interface AutoSupersedeResult {
  /** True when the classifier was called. */
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
}

/** The answer to a write of `messages`: one write result per fact, in the conversation's order. */
export interface MessagesWriteResult {
  facts: WriteResult[];
  extraction: Extraction;
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

/** The settings of the API key in use. */
export interface Settings {
  /** What a write does when it does not say `autoSupersede`. */
  autoSupersedeDefault: boolean;
  /** Topics that never reach the classifier and are never superseded automatically. */
  excludedCategories: string[];
  /** Aurra acts on `contradicts` only at or above this; never below the server's floor of 0.85. */
  minConfidence: number;
  classifierModel: string;
  /** `contradicts` verdicts from here up to `minConfidence` become proposals; null: no proposals. */
  proposalMinConfidence: number | null;
  /** Model calls allowed per UTC day; null: no limit. */
  dailyModelCallsLimit: number | null;
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

/** What an erasure selected, as its receipt names it. Unknown selector keys a newer server sends are kept as given. */
export interface ErasureSelector {
  memoryId?: string;
  userId?: string;
  agentId?: string;
  conversationId?: string;
  sourceId?: string;
  tenant?: boolean;
  [key: string]: unknown;
}

/** How many records an erasure touched, by kind. */
export interface ErasureCounts {
  /** Memories erased whole (every version of each). */
  memories: number;
  /** Memory versions replaced by a content-free tombstone. */
  versions: number;
  /** Audit events about them, other than proposals, made content-free. */
  auditEvents: number;
  /** Review-queue proposals about them made content-free. */
  proposals: number;
  /** Idempotency-Key records whose stored answer named them, deleted. */
  idempotencyRecords: number;
}

/** The receipt of an erasure: what it selected, when it ran and what it touched. */
export interface Erasure {
  id: string;
  selector: ErasureSelector;
  createdAt: string;
  counts: ErasureCounts;
}

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
  /** true or false; absent or null uses the key's `autoSupersedeDefault`. */
  autoSupersede?: boolean | null;
  /** Sent as `Idempotency-Key` (1..128 characters); one is generated per call when absent. */
  idempotencyKey?: string;
}

/** Write one fact. */
export interface AddFactParams extends WriteOptions {
  /** 1..4000 characters after trimming. */
  content: string;
  messages?: undefined;
}

/** Write the facts a conversation states. */
export interface AddMessagesParams extends WriteOptions {
  /** 1..50 messages. */
  messages: MessageInput[];
  content?: undefined;
}

export type AddParams = AddFactParams | AddMessagesParams;

/** Filters of `memories.list` and `memories.search`. */
export interface MemoryListParams {
  topic?: string;
  userId?: string;
  agentId?: string;
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
  /** An Anthropic model id (`claude-...`). */
  classifierModel?: string;
  /** null (no proposals) or within [0, minConfidence). */
  proposalMinConfidence?: number | null;
  /** null (no limit) or an integer >= 0. */
  dailyModelCallsLimit?: number | null;
}

/** Filters of `audit.list`. */
export interface AuditListParams {
  memoryId?: string;
  type?: AuditEventType;
  userId?: string;
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
 * What to erase: exactly one selector. `memoryId` erases that memory's whole lineage;
 * `userId` every memory of that end user (with `agentId`, only that agent's); `conversationId`
 * and `sourceId` every memory that came from there; `tenant: true` every memory of the tenant.
 */
export type ErasureCreateParams = (
  | { memoryId: string; userId?: undefined; agentId?: undefined; conversationId?: undefined; sourceId?: undefined; tenant?: undefined }
  | { userId: string; agentId?: string; memoryId?: undefined; conversationId?: undefined; sourceId?: undefined; tenant?: undefined }
  | { conversationId: string; memoryId?: undefined; userId?: undefined; agentId?: undefined; sourceId?: undefined; tenant?: undefined }
  | { sourceId: string; memoryId?: undefined; userId?: undefined; agentId?: undefined; conversationId?: undefined; tenant?: undefined }
  | { tenant: true; memoryId?: undefined; userId?: undefined; agentId?: undefined; conversationId?: undefined; sourceId?: undefined }
);

/** Params of the POST calls on an audit event. */
export interface AuditActionParams {
  idempotencyKey?: string;
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
