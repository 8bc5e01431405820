"""The Aurra stack: one construct per capability, composed."""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
from constructs import Construct

from infra import constants as c
from infra.components.api import Api
from infra.components.database import Database
from infra.components.flags import FlagsAndSecrets
from infra.components.functions import Functions
from infra.components.layer import CoreLayer
from infra.components.maintenance import Maintenance
from infra.components.migrations import Migrations
from infra.components.network import Network
from infra.components.observability import Observability
from infra.config import AurraConfig
from infra.nag import acknowledge_findings


class AurraStack(cdk.Stack):
    def __init__(self, scope: Construct, construct_id: str, *, config: AurraConfig, **kwargs: Any) -> None:
        super().__init__(
            scope,
            construct_id,
            description=f"Aurra memory service ({config.stage})",
            **kwargs,
        )
        self.config = config
        self.network = Network(self, "Network", config=config)
        self.database = Database(self, "Database", config=config, network=self.network)
        self.flags = FlagsAndSecrets(self, "Flags", config=config)
        self.layer = CoreLayer(self, "CoreLayer", config=config)
        self.functions = Functions(
            self,
            "Functions",
            config=config,
            network=self.network,
            database=self.database,
            flags=self.flags,
            layer=self.layer.layer,
        )
        self.api = Api(self, "Api", config=config, functions=self.functions)
        self.functions.grant_api_key_management(
            rest_api_id=self.api.rest_api.rest_api_id,
            usage_plan_id=self.api.usage_plan.usage_plan_id,
        )
        self.migrations = Migrations(
            self,
            "Migrations",
            config=config,
            migrate_function=self.functions[c.MIGRATE],
            database=self.database,
        )
        self.maintenance = Maintenance(
            self,
            "Maintenance",
            config=config,
            maintenance_function=self.functions[c.MAINTENANCE],
            migrations=self.migrations,
        )
        self.observability = Observability(
            self,
            "Observability",
            config=config,
            api=self.api,
            functions=self.functions,
            database=self.database,
        )
        self._outputs()
        acknowledge_findings(self)

    def _outputs(self) -> None:
        stage = self.config.stage
        outputs = {
            "ApiUrl": (self.api.stage.url_for_path("/agent"), "Base URL of the Aurra API"),
            "RestApiId": (self.api.rest_api.rest_api_id, "API Gateway REST API id"),
            "UsagePlanId": (self.api.usage_plan.usage_plan_id, "Default usage plan of customer keys"),
            "AdminFunctionName": (
                self.functions[c.ADMIN].function_name,
                "Invoke to manage API keys (aurra keys create --stage)",
            ),
            "MaintenanceFunctionName": (
                self.functions[c.MAINTENANCE].function_name,
                (
                    f"Runs every {c.MAINTENANCE_SCHEDULE_MINUTES} minutes to keep large "
                    "tenants' own indexes; invoke to run it now"
                ),
            ),
            "Level2Parameter": (
                self.flags.level2_parameter.parameter_name,
                "SSM parameter switching Level 2 (automatic supersession)",
            ),
            "DatabaseSecretArn": (self.database.secret.secret_arn, "Database credentials"),
            "DatabaseProxyEndpoint": (self.database.proxy.endpoint, "RDS Proxy endpoint"),
            "AlarmTopicArn": (self.observability.topic.topic_arn, "Subscribe to receive alarms"),
            "DashboardName": (c.dashboard_name(stage), "CloudWatch dashboard"),
        }
        if self.flags.anthropic_secret is not None:
            outputs["AnthropicSecretArn"] = (
                self.flags.anthropic_secret.secret_arn,
                "Put the Anthropic API key here",
            )
        if self.flags.openai_secret is not None:
            outputs["OpenAISecretArn"] = (
                self.flags.openai_secret.secret_arn,
                "Put the API key of the OpenAI-compatible endpoint here",
            )
        for key, (value, description) in outputs.items():
            cdk.CfnOutput(self, key, value=value, description=description)
