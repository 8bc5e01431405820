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
  AutoSupersedeResult,
  Decision,
  DismissResult,
  Erasure,
  ErasureSelector,
  Extraction,
  HistoryResult,
  Memory,
  MemoryPage,
  MemoryVersion,
  MessagesWriteResult,
  RevertResult,
  Settings,
  SupersedeResult,
  Supersession,
  Usage,
  WriteResult,
} from "../types.js";

/** The body of a 2xx answer is not what the contract promises; `path` says where. */
export class ContractViolation extends Error {}

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
  };
}

export function readMessagesWriteResult(value: unknown, path = "response"): MessagesWriteResult {
  const o = object(value, path);
  return {
    facts: list(o, "facts", path, readWriteResult),
    extraction: readExtraction(o["extraction"], `${path}.extraction`),
  };
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

/** The selector's keys the SDK knows, wire name to SDK name; any other key is kept as sent. */
const SELECTOR_KEYS: Record<string, string> = {
  memory_id: "memoryId",
  user_id: "userId",
  agent_id: "agentId",
  conversation_id: "conversationId",
  source_id: "sourceId",
  tenant: "tenant",
};

export function readErasure(value: unknown, path = "erasure"): Erasure {
  const o = object(value, path);
  const selector: ErasureSelector = {};
  for (const [key, given] of Object.entries(object(o["selector"], `${path}.selector`))) {
    selector[SELECTOR_KEYS[key] ?? key] = given;
  }
  const counts = object(o["counts"], `${path}.counts`);
  const countsPath = `${path}.counts`;
  return {
    id: str(o, "id", path),
    selector,
    createdAt: str(o, "created_at", path),
    counts: {
      memories: num(counts, "memories", countsPath),
      versions: num(counts, "versions", countsPath),
      auditEvents: num(counts, "audit_events", countsPath),
      proposals: nullableNum(counts, "proposals", countsPath) ?? 0,
      idempotencyRecords: nullableNum(counts, "idempotency_records", countsPath) ?? 0,
    },
  };
}
