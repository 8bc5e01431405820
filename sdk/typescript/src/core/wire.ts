/**
 * Reading the server's snake_case JSON into the SDK's camelCase types.
 *
 * The readers are strict about what the contract requires (a missing `id` is
 * a broken answer, reported as `UnexpectedResponseError`) and lenient about the
 * rest: unknown fields are ignored and optional fields a server does not send
 * yet read as null, so an older SDK keeps working against a newer server and
 * the other way round.
 */

import type {
  ApproveResult,
  AuditEvent,
  AuditPage,
  AutoSupersedeMode,
  AutoSupersedeResult,
  BatchWriteResult,
  ChangeEvent,
  ChangeEventPage,
  Decision,
  DismissResult,
  ErasureReceipt,
  ErasureStatus,
  ExportPage,
  Extraction,
  HistoryResult,
  ImportIndexing,
  ImportIndexingState,
  Job,
  JobPage,
  Memory,
  MemoryPage,
  MemoryVersion,
  MessagesWriteResult,
  RevertResult,
  SecretsMode,
  Settings,
  Source,
  SupersedeResult,
  Supersession,
  Usage,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryPage,
  WriteResult,
} from "../types.js";

/** The body of a 2xx answer is not what the contract promises; `path` says where. */
export class ContractViolation extends Error {}

/** An answer that stops before its end: the connection broke mid-body (worth asking again). */
export class CutShort extends ContractViolation {}

type Json = Record<string, unknown>;

function object(value: unknown, path: string): Json {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ContractViolation(`${path} should be an object`);
  }
  return value as Json;
}

function str(o: Json, key: string, path: string): string {
  const value = o[key];
  if (typeof value !== "string") throw new ContractViolation(`${path}.${key} should be a string`);
  return value;
}

function num(o: Json, key: string, path: string): number {
  const value = o[key];
  if (typeof value !== "number") throw new ContractViolation(`${path}.${key} should be a number`);
  return value;
}

function bool(o: Json, key: string, path: string): boolean {
  const value = o[key];
  if (typeof value !== "boolean") throw new ContractViolation(`${path}.${key} should be a boolean`);
  return value;
}

function nullableStr(o: Json, key: string, path: string): string | null {
  const value = o[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw new ContractViolation(`${path}.${key} should be a string or null`);
  return value;
}

function nullableNum(o: Json, key: string, path: string): number | null {
  const value = o[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== "number") throw new ContractViolation(`${path}.${key} should be a number or null`);
  return value;
}

function nullable<T>(o: Json, key: string, path: string, read: (value: unknown, path: string) => T): T | null {
  const value = o[key];
  return value === undefined || value === null ? null : read(value, `${path}.${key}`);
}

function list<T>(o: Json, key: string, path: string, read: (value: unknown, path: string) => T): T[] {
  const value = o[key];
  if (!Array.isArray(value)) throw new ContractViolation(`${path}.${key} should be an array`);
  return value.map((item, i) => read(item, `${path}.${key}[${i}]`));
}

function dict(o: Json, key: string, path: string): Record<string, unknown> {
  const value = o[key];
  return value === undefined || value === null ? {} : { ...object(value, `${path}.${key}`) };
}

function readSource(value: unknown, path: string): Source {
  const o = object(value, path);
  return {
    type: str(o, "type", path),
    id: nullableStr(o, "id", path),
    conversationId: nullableStr(o, "conversation_id", path),
    messageIndexes:
      o["message_indexes"] === undefined || o["message_indexes"] === null
        ? null
        : list(o, "message_indexes", path, (item, p) => {
            if (typeof item !== "number") throw new ContractViolation(`${p} should be a number`);
            return item;
          }),
    quote: nullableStr(o, "quote", path),
    uri: nullableStr(o, "uri", path),
  };
}

export function readMemory(value: unknown, path = "memory"): Memory {
  const o = object(value, path);
  const memory: Memory = {
    id: str(o, "id", path),
    content: str(o, "content", path),
    topic: str(o, "topic", path),
    metadata: dict(o, "metadata", path),
    validFrom: str(o, "valid_from", path),
    validTo: nullableStr(o, "valid_to", path),
    supersededBy: nullableStr(o, "superseded_by", path),
    supersedes: nullableStr(o, "supersedes", path),
    recordedAt: str(o, "recorded_at", path),
    status: str(o, "status", path),
    userId: nullableStr(o, "user_id", path),
    agentId: nullableStr(o, "agent_id", path),
    supersededEventId: nullableStr(o, "superseded_event_id", path),
    source: nullable(o, "source", path, readSource),
  };
  const score = nullableNum(o, "score", path);
  if (score !== null) memory.score = score;
  const relevance = nullableNum(o, "relevance", path);
  if (relevance !== null) memory.relevance = relevance;
  return memory;
}

export function readMemoryVersion(value: unknown, path = "version"): MemoryVersion {
  const o = object(value, path);
  return {
    recordedAt: str(o, "recorded_at", path),
    recordedTo: nullableStr(o, "recorded_to", path),
    validFrom: nullableStr(o, "valid_from", path),
    validTo: nullableStr(o, "valid_to", path),
    supersededBy: nullableStr(o, "superseded_by", path),
    supersedes: nullableStr(o, "supersedes", path),
    status: nullableStr(o, "status", path),
  };
}

export function readUsage(value: unknown, path = "usage"): Usage {
  const o = object(value, path);
  return {
    modelCalls: num(o, "model_calls", path),
    inputTokens: nullableNum(o, "input_tokens", path),
    outputTokens: nullableNum(o, "output_tokens", path),
    cacheReadInputTokens: nullableNum(o, "cache_read_input_tokens", path),
    cacheCreationInputTokens: nullableNum(o, "cache_creation_input_tokens", path),
    latencyMs: num(o, "latency_ms", path),
    costUsd: nullableNum(o, "cost_usd", path),
  };
}

function readDecision(value: unknown, path: string): Decision {
  const o = object(value, path);
  return {
    candidateId: str(o, "candidate_id", path),
    classifier: str(o, "classifier", path),
    confidence: num(o, "confidence", path),
    reason: nullableStr(o, "reason", path),
    model: nullableStr(o, "model", path),
    notActedReason: nullableStr(o, "not_acted_reason", path),
  };
}

function readSupersession(value: unknown, path: string): Supersession {
  const o = object(value, path);
  return {
    supersededId: str(o, "superseded_id", path),
    classifier: str(o, "classifier", path),
    confidence: num(o, "confidence", path),
    reason: nullableStr(o, "reason", path),
    model: nullableStr(o, "model", path),
    auditEventId: nullableStr(o, "audit_event_id", path),
  };
}

function readAutoSupersede(value: unknown, path: string): AutoSupersedeResult {
  const o = object(value, path);
  return {
    ran: bool(o, "ran", path),
    skippedReason: nullableStr(o, "skipped_reason", path),
    candidatesExamined: nullableNum(o, "candidates_examined", path) ?? 0,
    decision: nullable(o, "decision", path, readDecision),
    supersession: nullable(o, "supersession", path, readSupersession),
    proposal: nullable(o, "proposal", path, readSupersession),
    usage: nullable(o, "usage", path, readUsage),
    status: nullableStr(o, "status", path),
    jobId: nullableStr(o, "job_id", path),
  };
}

export function readWriteResult(value: unknown, path = "response"): WriteResult {
  const o = object(value, path);
  return {
    created: bool(o, "created", path),
    memory: readMemory(o["memory"], `${path}.memory`),
    autoSupersede: readAutoSupersede(o["auto_supersede"], `${path}.auto_supersede`),
    duplicateOf: nullableStr(o, "duplicate_of", path),
  };
}

function readExtraction(value: unknown, path: string): Extraction {
  const o = object(value, path);
  return {
    extractor: str(o, "extractor", path),
    model: nullableStr(o, "model", path),
    factsFound: num(o, "facts_found", path),
    promptVersion: nullableStr(o, "prompt_version", path),
    usage: nullable(o, "usage", path, readUsage),
    factsDropped: nullableNum(o, "facts_dropped", path) ?? 0,
    conversationId: nullableStr(o, "conversation_id", path),
  };
}

export function readMessagesWriteResult(value: unknown, path = "response"): MessagesWriteResult {
  const o = object(value, path);
  return {
    facts: list(o, "facts", path, readWriteResult),
    extraction: readExtraction(o["extraction"], `${path}.extraction`),
  };
}

export function readBatchWriteResult(value: unknown, path = "response"): BatchWriteResult {
  const o = object(value, path);
  return { results: list(o, "results", path, readWriteResult) };
}

export function readSupersedeResult(value: unknown, path = "response"): SupersedeResult {
  const o = object(value, path);
  return {
    memory: readMemory(o["memory"], `${path}.memory`),
    superseded: readMemory(o["superseded"], `${path}.superseded`),
  };
}

export function readHistory(value: unknown, path = "response"): HistoryResult {
  const o = object(value, path);
  return {
    memoryId: str(o, "memory_id", path),
    chain: list(o, "chain", path, readMemory),
    versions: o["versions"] === undefined ? [] : list(o, "versions", path, readMemoryVersion),
  };
}

export function readMemoryPage(value: unknown, path = "response"): MemoryPage {
  const o = object(value, path);
  return { memories: list(o, "memories", path, readMemory), nextCursor: nullableStr(o, "next_cursor", path) };
}

export function readSettings(value: unknown, path = "settings"): Settings {
  const o = object(value, path);
  return {
    autoSupersedeDefault: bool(o, "auto_supersede_default", path),
    excludedCategories: list(o, "excluded_categories", path, (item, p) => {
      if (typeof item !== "string") throw new ContractViolation(`${p} should be a string`);
      return item;
    }),
    minConfidence: num(o, "min_confidence", path),
    classifierModel: str(o, "classifier_model", path),
    proposalMinConfidence: nullableNum(o, "proposal_min_confidence", path),
    dailyModelCallsLimit: nullableNum(o, "daily_model_calls_limit", path),
    // a server from before the setting sends none: read as the default
    secrets: (nullableStr(o, "secrets", path) ?? "redact") as SecretsMode,
    dailyModelCostLimitUsd: nullableNum(o, "daily_model_cost_limit_usd", path),
    historyRetentionDays: nullableNum(o, "history_retention_days", path),
    memoryRetentionDays: nullableNum(o, "memory_retention_days", path),
    autoSupersedeMode: (nullableStr(o, "auto_supersede_mode", path) ?? "sync") as AutoSupersedeMode,
    webhooks: o["webhooks"] === undefined || o["webhooks"] === null ? [] : list(o, "webhooks", path, readWebhook),
  };
}

function readWebhook(value: unknown, path: string): Webhook {
  const o = object(value, path);
  return {
    url: str(o, "url", path),
    events: list(o, "events", path, (item, p) => {
      if (typeof item !== "string") throw new ContractViolation(`${p} should be a string`);
      return item as Webhook["events"][number];
    }),
    secretSet: bool(o, "secret_set", path),
  };
}

export function readAuditEvent(value: unknown, path = "event"): AuditEvent {
  const o = object(value, path);
  return {
    id: str(o, "id", path),
    type: str(o, "type", path),
    createdAt: str(o, "created_at", path),
    apiKeyId: nullableStr(o, "api_key_id", path),
    memoryId: nullableStr(o, "memory_id", path),
    supersededId: nullableStr(o, "superseded_id", path),
    classifier: nullableStr(o, "classifier", path),
    confidence: nullableNum(o, "confidence", path),
    reason: nullableStr(o, "reason", path),
    model: nullableStr(o, "model", path),
    candidatesExamined: nullableNum(o, "candidates_examined", path),
    details: dict(o, "details", path),
    status: nullableStr(o, "status", path),
  };
}

export function readAuditPage(value: unknown, path = "response"): AuditPage {
  const o = object(value, path);
  return { events: list(o, "events", path, readAuditEvent), nextCursor: nullableStr(o, "next_cursor", path) };
}

export function readRevertResult(value: unknown, path = "response"): RevertResult {
  const o = object(value, path);
  return {
    event: readAuditEvent(o["event"], `${path}.event`),
    restored: readMemory(o["restored"], `${path}.restored`),
  };
}

export function readApproveResult(value: unknown, path = "response"): ApproveResult {
  const o = object(value, path);
  return {
    event: readAuditEvent(o["event"], `${path}.event`),
    memory: readMemory(o["memory"], `${path}.memory`),
    superseded: readMemory(o["superseded"], `${path}.superseded`),
  };
}

export function readDismissResult(value: unknown, path = "response"): DismissResult {
  const o = object(value, path);
  return { event: readAuditEvent(o["event"], `${path}.event`) };
}

/** A receipt; `status` is the answer's (201: this call erased; 200: the earlier receipt), none on a read. */
function readErasureStatus(o: Json, path: string): ErasureStatus {
  const value = nullableStr(o, "status", path) ?? "completed";
  if (value !== "completed" && value !== "running") {
    throw new ContractViolation(`${path}.status should be "completed" or "running"`);
  }
  return value;
}

export function readErasureReceipt(value: unknown, status: number | null, path = "receipt"): ErasureReceipt {
  const o = object(value, path);
  const counts = object(o["counts"], `${path}.counts`);
  const where = `${path}.counts`;
  return {
    id: str(o, "id", path),
    selector: dict(o, "selector", path),
    createdAt: str(o, "created_at", path),
    counts: {
      memories: num(counts, "memories", where),
      versions: num(counts, "versions", where),
      auditEvents: num(counts, "audit_events", where),
      proposals: num(counts, "proposals", where),
      idempotencyRecords: num(counts, "idempotency_records", where),
    },
    status: readErasureStatus(o, path),
    // 202: a large erasure erased batches and is still running; the same call again goes on.
    created: status === null ? null : status === 201 || status === 202,
  };
}

export function readExportPage(value: unknown): ExportPage {
  if (!Array.isArray(value) || value.length === 0) throw new CutShort("an export response has lines: this one had none");
  const end: unknown = value[value.length - 1];
  if (typeof end !== "object" || end === null || (end as Json)["kind"] !== "end") {
    throw new CutShort('an export response ends with {"kind": "end", ...}: this one was cut short');
  }
  const next = (end as Json)["next_cursor"];
  if (next !== null && typeof next !== "string") throw new ContractViolation("next_cursor should be a string or null");
  return { records: value.slice(0, -1) as Record<string, unknown>[], nextCursor: next };
}

/** `superseded_by` -> `supersededBy`. */
function camel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * A change event, from the events list or a webhook's body. `data` holds only ids and small
 * codes, its keys camelCased (the contract names each one per type).
 */
export function readChangeEvent(value: unknown, path = "event"): ChangeEvent {
  const o = object(value, path);
  const data = Object.fromEntries(Object.entries(dict(o, "data", path)).map(([k, v]) => [camel(k), v]));
  return {
    id: str(o, "id", path),
    type: str(o, "type", path),
    createdAt: str(o, "created_at", path),
    userId: nullableStr(o, "user_id", path),
    agentId: nullableStr(o, "agent_id", path),
    memoryId: nullableStr(o, "memory_id", path),
    data,
  } as ChangeEvent;
}

export function readChangeEventPage(value: unknown, path = "response"): ChangeEventPage {
  const o = object(value, path);
  return { events: list(o, "events", path, readChangeEvent), nextCursor: str(o, "next_cursor", path) };
}

export function readWebhookDelivery(value: unknown, path = "delivery"): WebhookDelivery {
  const o = object(value, path);
  return {
    id: str(o, "id", path),
    eventId: str(o, "event_id", path),
    eventType: str(o, "event_type", path),
    memoryId: nullableStr(o, "memory_id", path),
    url: str(o, "url", path),
    status: str(o, "status", path) as WebhookDelivery["status"],
    attempts: num(o, "attempts", path),
    createdAt: str(o, "created_at", path),
    nextAttemptAt: nullableStr(o, "next_attempt_at", path),
    lastAttemptAt: nullableStr(o, "last_attempt_at", path),
    lastStatus: nullableNum(o, "last_status", path),
    lastError: nullableStr(o, "last_error", path),
    deliveredAt: nullableStr(o, "delivered_at", path),
  };
}

export function readWebhookDeliveryPage(value: unknown, path = "response"): WebhookDeliveryPage {
  const o = object(value, path);
  return {
    deliveries: list(o, "deliveries", path, readWebhookDelivery),
    nextCursor: nullableStr(o, "next_cursor", path),
  };
}

export function readJob(value: unknown, path = "job"): Job {
  const o = object(value, path);
  return {
    id: str(o, "id", path),
    memoryId: str(o, "memory_id", path),
    userId: nullableStr(o, "user_id", path),
    agentId: nullableStr(o, "agent_id", path),
    status: str(o, "status", path),
    attempts: num(o, "attempts", path),
    createdAt: str(o, "created_at", path),
    completedAt: nullableStr(o, "completed_at", path),
    outcome: nullableStr(o, "outcome", path),
    auditEventId: nullableStr(o, "audit_event_id", path),
  };
}

export function readJobPage(value: unknown, path = "response"): JobPage {
  const o = object(value, path);
  return { jobs: list(o, "jobs", path, readJob), nextCursor: nullableStr(o, "next_cursor", path) };
}

export function readImportIndexing(value: unknown, path = "response"): ImportIndexing {
  const o = object(value, path);
  return { indexing: str(o, "indexing", path) as ImportIndexingState, reason: str(o, "reason", path) };
}
