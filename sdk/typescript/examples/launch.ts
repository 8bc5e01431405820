// The launch example: the key's settings, a stricter floor, and a write that asks for automatic supersession.
// Run with AURRA_API_KEY (and AURRA_BASE_URL for `aurra dev`) set.
import { Aurra } from "aurra";

const client = new Aurra(); // apiKey and baseURL from AURRA_API_KEY and AURRA_BASE_URL

const s = await client.settings.get();
console.log(s);

await client.settings.update({
  excludedCategories: ["health_medical", "legal_status", "financial"],
  minConfidence: 0.92, // raise the floor (0.85 is the minimum)
});

const result = await client.memories.add({
  content: "User has been using Emacs as their daily editor, having moved away from Vim",
  topic: "preferences",
  autoSupersede: true,
});
console.log(result.autoSupersede);

await client.settings.update({ autoSupersedeDefault: true });
