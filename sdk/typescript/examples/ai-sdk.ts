// An assistant with Aurra's memory in the Vercel AI SDK: `aurraTools` gives the model remember,
// recall (with asOf), history and forget, all bound to one end user.
// Run with AURRA_API_KEY (and AURRA_BASE_URL for `aurra dev`) and AI_GATEWAY_API_KEY set:
//   node build/examples/ai-sdk.js "I switched from Vim to Emacs on May 3"   (built by npm run pretest)
// or pass any provider's model to assistant().
import { generateText, isStepCount, type LanguageModel } from "ai";
import { Aurra } from "aurra";
import { aurraTools } from "aurra/ai";
import { pathToFileURL } from "node:url";

export function assistant(model: LanguageModel, client: Aurra, userId: string) {
  const tools = aurraTools({ client, userId, autoSupersede: true });
  return async (prompt: string): Promise<string> => {
    const { text } = await generateText({
      model,
      tools,
      stopWhen: isStepCount(5),
      instructions:
        "You are a helpful assistant with a long-term memory. Remember durable facts the user tells you, " +
        "with validFrom when they say when it became true, and recall what you know before answering about them.",
      prompt,
    });
    return text;
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const chat = assistant("anthropic/claude-haiku-4.5", new Aurra(), "alice");
  console.log(await chat(process.argv[2] ?? "Which editor do I use?"));
}
