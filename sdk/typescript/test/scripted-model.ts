/**
 * A scripted local model for the AI SDK's real tool loop: the SDK's own mock language model
 * (`MockLanguageModelV4` from `ai/test`), whose every turn either calls one tool with given
 * input or answers with the text of the last tool result. Nothing reaches the network.
 */

import { generateText, isStepCount, type ToolSet } from "ai";
import { MockLanguageModelV4 } from "ai/test";

export interface Call {
  tool: string;
  input: Record<string, unknown>;
}

/** A script step: answer with the last tool result's text. */
export const ANSWER = null;

export type Step = Call | typeof ANSWER;

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** The text of the last tool result in a prompt: a result's text, or the error the model was shown. */
function lastToolResult(prompt: readonly { role: string; content: unknown }[]): string {
  for (const message of [...prompt].reverse()) {
    if (message.role !== "tool" || !Array.isArray(message.content)) continue;
    for (const part of [...message.content].reverse() as { type: string; output?: { type: string; value?: unknown } }[]) {
      if (part.type !== "tool-result" || !part.output) continue;
      const { type, value } = part.output;
      return type === "text" || type === "error-text" ? String(value) : JSON.stringify(value);
    }
  }
  return "";
}

export function scriptedModel(script: Step[]): MockLanguageModelV4 {
  const steps = [...script];
  let calls = 0;
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const step = steps.shift();
      if (step === undefined) throw new Error("the scripted model ran out of steps");
      if (step === ANSWER) {
        return {
          content: [{ type: "text", text: lastToolResult(prompt) }],
          finishReason: { unified: "stop", raw: undefined },
          usage: USAGE,
          warnings: [],
        };
      }
      calls += 1;
      return {
        content: [{ type: "tool-call", toolCallId: `call-${calls}`, toolName: step.tool, input: JSON.stringify(step.input) }],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage: USAGE,
        warnings: [],
      };
    },
  });
}

/**
 * One run of the AI SDK's tool loop (`generateText` with `stopWhen`) over the script: the model's
 * final text, every tool call's result in order, and the model, to see what it was sent.
 */
export async function run(
  tools: ToolSet,
  script: Step[],
): Promise<{ text: string; results: string[]; model: MockLanguageModelV4 }> {
  const model = scriptedModel(script);
  const result = await generateText({
    model,
    tools,
    stopWhen: isStepCount(script.length + 1),
    prompt: "Help the user, and use your memory.",
  });
  const left = script.length - model.doGenerateCalls.length;
  if (left !== 0) throw new Error(`the tool loop stopped with ${left} scripted step(s) left`);
  return { text: result.text, results: result.toolResults.map((r) => String(r.output)), model };
}
