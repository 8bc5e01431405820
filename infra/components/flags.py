"""Flags and secrets: the Level 2 switch and the Anthropic API key.

- `/aurra/<stage>/level2_enabled` (SSM String, `true`/`false`) is created
  `false`. Handlers read it through Powertools' Parameters utility with a
  short cache; operators flip it with one `aws ssm put-parameter --overwrite`.
- A Secrets Manager secret, generated at deploy, is the key that signs
  pagination cursors (HMAC over tenant, endpoint and position): a cursor of
  another tenant or endpoint, or one a client forged, is refused.
- With the anthropic classifier or extractor, a Secrets Manager secret holds
  the Anthropic API key; with openai (an OpenAI-compatible endpoint), another
  holds that endpoint's key. The stack creates them with a random placeholder
  (nothing secret in the template); the team stores the real key in them after
  the first deploy.
"""

from __future__ import annotations

from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_ssm as ssm
from constructs import Construct

from infra import constants as c
from infra.components.keys import EncryptionKeys
from infra.config import AurraConfig


class FlagsAndSecrets(Construct):
    def __init__(
        self, scope: Construct, construct_id: str, *, config: AurraConfig, keys: EncryptionKeys
    ) -> None:
        super().__init__(scope, construct_id)
        self.level2_parameter = ssm.StringParameter(
            self,
            "Level2Enabled",
            parameter_name=c.level2_parameter_name(config.stage),
            string_value="false",
            allowed_pattern="^(true|false)$",
            description=(
                "Aurra Level 2 (automatic supersession) server switch: true or false. "
                "Flip with aws ssm put-parameter --overwrite."
            ),
            tier=ssm.ParameterTier.STANDARD,
        )

        self.cursor_secret = secretsmanager.Secret(
            self,
            "CursorSigningKey",
            secret_name=c.cursor_secret_name(config.stage),
            description=(
                "Aurra: the key that signs pagination cursors. Generated at deploy; a new value "
                "only invalidates the cursors clients hold (they start again from page one)."
            ),
            generate_secret_string=secretsmanager.SecretStringGenerator(
                password_length=64, exclude_punctuation=True
            ),
            encryption_key=keys.secrets,
        )

        self.anthropic_secret: secretsmanager.Secret | None = None
        if "anthropic" in config.model_providers:
            self.anthropic_secret = secretsmanager.Secret(
                self,
                "AnthropicApiKey",
                secret_name=c.anthropic_secret_name(config.stage),
                description=(
                    "Aurra: the Anthropic API key used by the anthropic classifier and extractor, as the "
                    "plain secret string. Created with a random placeholder; put the real key "
                    "with aws secretsmanager put-secret-value."
                ),
                generate_secret_string=secretsmanager.SecretStringGenerator(
                    password_length=40, exclude_punctuation=True
                ),
                encryption_key=keys.secrets,
            )

        self.openai_secret: secretsmanager.Secret | None = None
        if "openai" in config.model_providers:
            self.openai_secret = secretsmanager.Secret(
                self,
                "OpenAIApiKey",
                secret_name=c.openai_secret_name(config.stage),
                description=(
                    "Aurra: the API key of the OpenAI-compatible endpoint used by the openai "
                    "classifier and extractor, as the plain secret string. Created with a random "
                    "placeholder; put the real key with aws secretsmanager put-secret-value."
                ),
                generate_secret_string=secretsmanager.SecretStringGenerator(
                    password_length=40, exclude_punctuation=True
                ),
                encryption_key=keys.secrets,
            )
