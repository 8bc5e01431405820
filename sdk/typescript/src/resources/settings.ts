/** `client.settings`: the settings of the API key in use. */

import { InvalidArgumentError } from "../errors.js";
import { compact, describe } from "../core/request.js";
import type { Transport } from "../core/transport.js";
import { readSettings } from "../core/wire.js";
import type { RequestOptions, Settings as SettingsResult, SettingsUpdateParams, WebhookInput } from "../types.js";

const PATH = "/agent/settings";

export class Settings {
  readonly #transport: Transport;

  /** @internal */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** The key's settings. */
  async get(options?: RequestOptions): Promise<SettingsResult> {
    return this.#transport.send({ method: "GET", path: PATH, parse: (data) => readSettings(data) }, options);
  }

  /**
   * Change any subset of the settings; resolves to all of them. A `minConfidence`
   * below the server's floor of 0.85, or a `classifierModel` the deployment does not allow,
   * is a `ValidationError`. Every change is an audit event. `secrets: "refuse"` makes a write
   * carrying credentials a `ValidationError` (code `"sensitive_content"`) instead of storing
   * them redacted. `webhooks` replaces the key's whole list; each secret is write-only (read
   * back as `secretSet`).
   */
  async update(params: SettingsUpdateParams, options?: RequestOptions): Promise<SettingsResult> {
    if (typeof params !== "object" || params === null) {
      throw new InvalidArgumentError("settings.update() takes an object of the settings to change");
    }
    if (params.excludedCategories !== undefined && !Array.isArray(params.excludedCategories)) {
      // A lone string would be sent as a JSON string, never what was meant.
      throw new InvalidArgumentError("excludedCategories must be an array of topics");
    }
    const body = compact({
      auto_supersede_default: params.autoSupersedeDefault,
      excluded_categories: params.excludedCategories,
      min_confidence: params.minConfidence,
      classifier_model: params.classifierModel,
      // null is meaningful for these (no proposals, no limit, for ever), so only undefined is left out.
      proposal_min_confidence: params.proposalMinConfidence,
      daily_model_calls_limit: params.dailyModelCallsLimit,
      secrets: params.secrets,
      daily_model_cost_limit_usd: params.dailyModelCostLimitUsd,
      history_retention_days: params.historyRetentionDays,
      memory_retention_days: params.memoryRetentionDays,
      auto_supersede_mode: params.autoSupersedeMode,
      webhooks: params.webhooks === undefined ? undefined : webhooksBody(params.webhooks),
    });
    if (Object.keys(body).length === 0) {
      throw new InvalidArgumentError(
        "settings.update() needs at least one of autoSupersedeDefault, excludedCategories, minConfidence, " +
          "classifierModel, proposalMinConfidence, dailyModelCallsLimit, dailyModelCostLimitUsd, secrets, historyRetentionDays, " +
          "memoryRetentionDays, autoSupersedeMode, webhooks",
      );
    }
    return this.#transport.send({ method: "PATCH", path: PATH, body, parse: (data) => readSettings(data) }, options);
  }
}

function webhooksBody(webhooks: WebhookInput[]): Record<string, unknown>[] {
  if (!Array.isArray(webhooks)) {
    throw new InvalidArgumentError(`webhooks must be an array of { url, events, secret }, not ${describe(webhooks)}`);
  }
  return webhooks.map((webhook, i) => {
    if (typeof webhook !== "object" || webhook === null || !Array.isArray(webhook.events)) {
      throw new InvalidArgumentError(`webhooks[${i}] must be an object { url, events: [...], secret }`);
    }
    // Only what was given: a URL the key already has keeps its secret when none is sent.
    return compact({ url: webhook.url, events: webhook.events, secret: webhook.secret });
  });
}
