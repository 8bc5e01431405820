/**
 * Aurra's memory as tools of the Vercel AI SDK (`ai`), for `generateText`, `streamText` and agents.
 *
 * ```ts
 * import { generateText, isStepCount } from "ai";
 * import { Aurra } from "aurra";
 * import { aurraTools } from "aurra/ai";
 *
 * const tools = aurraTools({ client: new Aurra(), userId: "alice", autoSupersede: true });
 * await generateText({ model, tools, stopWhen: isStepCount(5), prompt: "I switched to Emacs" });
 * ```
 *
 * `remember`, `recall` (with `asOf`), `history` and `forget`, each bound to the `userId` (and
 * `agentId`) given here, never to one the model names: a model cannot read or erase another
 * user's memories by naming their id. Each answers the model with plain text.
 *
 * This entry needs the optional peer dependencies `ai` (7.x) and `zod` (3.25.76+ or 4.x);
 * the package's main entry, `aurra`, never loads them.
 */

import { type FlexibleSchema, type Tool, type ToolExecutionOptions, tool } from "ai";
import { z } from "zod/v4";

import type { Aurra } from "./client.js";
import { APIStatusError, InvalidArgumentError } from "./errors.js";
import type { Memory, RequestOptions } from "./types.js";

/** What the tools tell the model they do. */
export const DESCRIPTIONS = {
  remember:
    "Store a durable fact about the user, in the third person ('User switched from Vim to Emacs'). " +
    "If it replaces something remembered before, Aurra retires the old fact and keeps its history. " +
    "validFrom is when it became true, if the user said so.",
  recall:
    "Search the user's memories. Returns the facts true now, or, with asOf (a date such as 2026-04-15), " +
    "the facts that were true then.",
  history: "The history of one memory (by id): what it replaced and what replaced it, with dates.",
  forget: "Erase one memory (by id) and its whole history. Only when the user asks to forget it.",
} as const;

export interface AurraToolsOptions {
  /** The client the tools call Aurra with. */
  client: Aurra;
  /** The end user every call is bound to, whatever the model asks for. */
  userId: string;
  /** The agent every call is bound to, if any: memories are then written and read in that agent's scope. */
  agentId?: string | undefined;
  /** Level 2 on `remember`: true or false; absent, the key's `autoSupersedeDefault`. */
  autoSupersede?: boolean | undefined;
  /** The topic of a fact the model writes without one (absent: the server's `general`). */
  topic?: string | undefined;
  /** false leaves the `forget` tool out (default true). */
  forget?: boolean | undefined;
}

export interface RememberInput {
  content: string;
  topic?: string | undefined;
  validFrom?: string | undefined;
}

export interface RecallInput {
  query: string;
  asOf?: string | undefined;
}

export interface MemoryIdInput {
  memoryId: string;
}

/**
 * One of the tools: the AI SDK's `Tool`, whose `execute` is always there and answers the model
 * with text (this `execute` comes first, so that calling it yourself resolves to a string).
 */
export type AurraTool<INPUT> = {
  execute: (input: INPUT, options: ToolExecutionOptions<any>) => Promise<string>;
} & Tool<INPUT, string>;

// Type aliases, not interfaces: only these are assignable to the AI SDK's `ToolSet` (a record).

/** The tools without `forget` (`aurraTools({ ..., forget: false })`). */
export type AurraReadWriteTools = {
  remember: AurraTool<RememberInput>;
  recall: AurraTool<RecallInput>;
  history: AurraTool<MemoryIdInput>;
};

/** The four tools, keyed by the names the model calls them by. */
export type AurraTools = AurraReadWriteTools & {
  forget: AurraTool<MemoryIdInput>;
};

/** An RFC 3339 time with a zone, or a bare date (midnight UTC that day). */
const TIME = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2}))?$/;
const TOPIC = /^[a-z0-9_]{1,64}$/;

function time(what: string) {
  return z
    .string()
    .regex(TIME, "a date such as 2026-04-15, or a time with its zone such as 2026-04-15T09:30:00Z")
    .describe(`${what}: a date such as 2026-04-15 (midnight UTC), or a time with its zone such as 2026-04-15T09:30:00Z`);
}

const memoryId = z.string().min(1).describe("The memory's id, as recall shows it");

const SCHEMAS = {
  remember: z.object({
    content: z.string().min(1).describe("The fact, in the third person"),
    topic: z
      .string()
      .regex(TOPIC, "lowercase letters, digits and _ only")
      .optional()
      .describe("A topic such as preferences, work or location (lowercase letters, digits and _)"),
    validFrom: time("When it became true, if the user said so").optional(),
  }),
  recall: z.object({
    query: z.string().min(1).describe("What to look for"),
    asOf: time("The facts true then, instead of now").optional(),
  }),
  memoryId: z.object({ memoryId }),
};

/** `tool()`, keeping the type of `execute` (which the AI SDK widens to any of the shapes it accepts). */
function aurraTool<INPUT>(definition: {
  description: string;
  inputSchema: FlexibleSchema<INPUT>;
  execute: (input: INPUT, options: ToolExecutionOptions<any>) => Promise<string>;
}): AurraTool<INPUT> {
  return { ...tool(definition), execute: definition.execute };
}

/** How many memories `recall` answers with. */
const RECALL_LIMIT = 5;

/**
 * The memory tools for the AI SDK, bound to one end user (and agent): pass the result as
 * `tools` to `generateText`, `streamText` or an agent, alone or spread among your own tools.
 */
export function aurraTools(options: AurraToolsOptions & { forget: false }): AurraReadWriteTools;
export function aurraTools(options: AurraToolsOptions): AurraTools;
export function aurraTools(options: AurraToolsOptions): AurraTools | AurraReadWriteTools {
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgumentError("aurraTools() takes { client, userId, agentId?, autoSupersede?, topic?, forget? }");
  }
  const { client, userId, agentId, autoSupersede, topic } = options;
  if (typeof client !== "object" || client === null || typeof client.memories !== "object") {
    throw new InvalidArgumentError("aurraTools() needs client: an Aurra client (new Aurra({ apiKey }))");
  }
  if (typeof userId !== "string" || userId === "") {
    throw new InvalidArgumentError("aurraTools() needs userId: the end user every memory call is bound to");
  }
  if (agentId !== undefined && (typeof agentId !== "string" || agentId === "")) {
    throw new InvalidArgumentError("agentId must be a non-empty string when given");
  }
  if (topic !== undefined && (typeof topic !== "string" || !TOPIC.test(topic))) {
    throw new InvalidArgumentError(`topic must match ${TOPIC.source}, got ${JSON.stringify(topic)}`);
  }
  const scope = agentId === undefined ? { userId } : { userId, agentId };

  /** The memory, if it exists and belongs to this user (and agent); else null. */
  async function own(id: string, request: RequestOptions): Promise<Memory | null> {
    let memory: Memory;
    try {
      memory = await client.memories.get(id, {}, request);
    } catch (error) {
      // 404: no such memory in this tenant; 410: erased; 422: not an id at all.
      if (error instanceof APIStatusError && [404, 410, 422].includes(error.status)) return null;
      throw error;
    }
    if (memory.userId !== userId || (agentId !== undefined && memory.agentId !== agentId)) return null;
    return memory;
  }

  const remember = aurraTool<RememberInput>({
    description: DESCRIPTIONS.remember,
    inputSchema: SCHEMAS.remember,
    execute: async (input, { abortSignal }) => {
      const chosenTopic = input.topic ?? topic;
      const result = await client.memories.add(
        {
          content: input.content,
          ...scope,
          ...(chosenTopic === undefined ? {} : { topic: chosenTopic }),
          ...(input.validFrom === undefined ? {} : { validFrom: rfc3339(input.validFrom) }),
          ...(autoSupersede === undefined ? {} : { autoSupersede }),
        },
        request(abortSignal),
      );
      if (!result.created) return `Already remembered (memory ${result.duplicateOf ?? result.memory.id}).`;
      let answer = `Remembered: ${result.memory.content} (memory ${result.memory.id}).`;
      const supersession = result.autoSupersede.supersession;
      if (supersession !== null) answer += ` It replaced memory ${supersession.supersededId}.`;
      return answer;
    },
  });

  const recall = aurraTool<RecallInput>({
    description: DESCRIPTIONS.recall,
    inputSchema: SCHEMAS.recall,
    execute: async (input, { abortSignal }) => {
      const page = await client.memories.searchPage(
        input.query,
        { ...scope, limit: RECALL_LIMIT, ...(input.asOf === undefined ? {} : { asOf: rfc3339(input.asOf) }) },
        request(abortSignal),
      );
      if (page.memories.length === 0) {
        return `Nothing remembered about that${input.asOf === undefined ? "" : ` as of ${input.asOf}`}.`;
      }
      return page.memories.map((memory) => line(memory)).join("\n");
    },
  });

  const history = aurraTool<MemoryIdInput>({
    description: DESCRIPTIONS.history,
    inputSchema: SCHEMAS.memoryId,
    execute: async (input, { abortSignal }) => {
      const options = request(abortSignal);
      if ((await own(input.memoryId, options)) === null) return `No memory ${input.memoryId} for this user.`;
      const { chain } = await client.memories.history(input.memoryId, {}, options);
      return chain.map((memory) => line(memory, true)).join("\n");
    },
  });

  const tools: AurraReadWriteTools = { remember, recall, history };
  if (options.forget === false) return tools;

  const forget = aurraTool<MemoryIdInput>({
    description: DESCRIPTIONS.forget,
    inputSchema: SCHEMAS.memoryId,
    execute: async (input, { abortSignal }) => {
      const options = request(abortSignal);
      if ((await own(input.memoryId, options)) === null) return `No memory ${input.memoryId} for this user.`;
      const receipt = await client.erasures.create({ memoryId: input.memoryId }, options);
      return `Erased memory ${input.memoryId} and its history (receipt ${receipt.id}).`;
    },
  });
  return { ...tools, forget };
}

/** The AI SDK's abort signal, passed on so an aborted generation stops its Aurra calls too. */
function request(signal: AbortSignal | undefined): RequestOptions {
  return signal === undefined ? {} : { signal };
}

/** A bare date is midnight UTC that day; anything else was checked to carry its zone. */
function rfc3339(value: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
}

/** One memory as the model reads it: `- content (valid from 2026-04-01 to 2026-05-03; memory id)`. */
function line(memory: Memory, status = false): string {
  let valid = `valid from ${day(memory.validFrom)}`;
  if (memory.validTo !== null) valid += ` to ${day(memory.validTo)}`;
  return `- ${memory.content} (${valid}${status ? `, ${memory.status}` : ""}; memory ${memory.id})`;
}

/** The UTC date of a server timestamp. */
function day(timestamp: string): string {
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime()) ? timestamp.slice(0, 10) : date.toISOString().slice(0, 10);
}
