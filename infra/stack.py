"""The Aurra stack: one construct per capability, composed."""

from __future__ import annotations

import json
from typing import Any

import aws_cdk as cdk
from constructs import Construct

from infra import constants as c
from infra.components.api import Api
from infra.components.change_stream import ChangeStream
from infra.components.console import Console
from infra.components.database import Database
from infra.components.flags import FlagsAndSecrets
from infra.components.functions import Functions
from infra.components.hosting import Hosting
from infra.components.keys import EncryptionKeys
from infra.components.layer import CoreLayer
from infra.components.level2_jobs import Level2Jobs
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
        self.keys = EncryptionKeys(self, "Keys", config=config)
        self.network = Network(self, "Network", config=config, keys=self.keys)
        self.database = Database(self, "Database", config=config, network=self.network, keys=self.keys)
        self.flags = FlagsAndSecrets(self, "Flags", config=config, keys=self.keys)
        self.layer = CoreLayer(self, "CoreLayer", config=config)
        self.functions = Functions(
            self,
            "Functions",
            config=config,
            network=self.network,
            database=self.database,
            flags=self.flags,
            layer=self.layer.layer,
            keys=self.keys,
        )
        self.api = Api(self, "Api", config=config, functions=self.functions, keys=self.keys)
        self.functions.grant_api_key_management(
            rest_api_id=self.api.rest_api.rest_api_id,
            usage_plan_id=self.api.usage_plan.usage_plan_id,
        )
        self.console = (
            Console(self, "Console", config=config, api=self.api, keys=self.keys)
            if config.console_enabled
            else None
        )
        self.migrations = Migrations(
            self,
            "Migrations",
            config=config,
            migrate_function=self.functions[c.MIGRATE],
            database=self.database,
            keys=self.keys,
        )
        # Code that reads the schema is deployed (and served) only once the
        # deploy's migrations have run; see the expand/contract rule in
        # docs/deploy.md for what that buys a rollback.
        for name in (*c.ROUTE_FUNCTIONS, c.AUTHORIZER, c.ADMIN):
            self.functions[name].node.add_dependency(self.migrations.resource)
        self.api.rest_api.latest_deployment.node.add_dependency(self.migrations.resource)
        self.database.order_rotations_after(self.migrations.resource)
        self.observability = Observability(
            self,
            "Observability",
            config=config,
            api=self.api,
            functions=self.functions,
            database=self.database,
            keys=self.keys,
        )
        self.maintenance = Maintenance(
            self,
            "Maintenance",
            config=config,
            maintenance_function=self.functions[c.MAINTENANCE],
            write_function=self.functions.by_name[c.WRITE].function,
            migrations=self.migrations,
            alarm_topic=self.observability.topic,
        )
        self.level2_jobs = Level2Jobs(
            self,
            "Level2Jobs",
            config=config,
            network=self.network,
            write_function=self.functions.by_name[c.WRITE],
            worker_function=self.functions.by_name[c.LEVEL2_WORKER],
            migrations=self.migrations,
            alarm_topic=self.observability.topic,
        )
        self.change_stream = ChangeStream(
            self,
            "ChangeStream",
            config=config,
            functions=self.functions,
            migrations=self.migrations,
            observability=self.observability,
        )
        self.hosting = Hosting(
            self, "Hosting", config=config, api=self.api, database=self.database, keys=self.keys
        )
        if self.hosting.backup_vault is not None:
            self.observability.watch_backups(config, c.backup_vault_name(config.stage))
        if self.console is not None:
            self.observability.watch_console(config, self.console.distribution)
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
            "EventBusName": (
                self.change_stream.bus.event_bus_name,
                f"The change stream's events (source {c.event_source(stage)}): subscribe with a rule",
            ),
            "EventBusArn": (self.change_stream.bus.event_bus_arn, "The change stream's event bus"),
            "DashboardName": (c.dashboard_name(stage), "CloudWatch dashboard"),
        }
        if self.hosting.domain is not None:
            outputs["ApiDomainUrl"] = (
                f"https://{self.config.domain_name}/agent",
                "Base URL on the custom domain",
            )
            outputs["ApiDomainTarget"] = (
                self.hosting.domain.domain_name_alias_domain_name,
                "Point the domain's DNS (CNAME or alias) here",
            )
        if self.hosting.access_log_bucket is not None:
            outputs["AccessLogBucket"] = (
                self.hosting.access_log_bucket.bucket_name,
                "Every API call's access-log record (key, tenant), kept for billing",
            )
        if self.console is not None:
            outputs["ConsoleUrl"] = (self.console.url, "The web console (sign in with an API key)")
            outputs["ConsoleDistributionId"] = (
                self.console.distribution.distribution_id,
                "The console's CloudFront distribution (its metrics are in us-east-1)",
            )
            outputs["ConsoleApiUrl"] = (
                f"https://{self.console.domain_name}/{c.API_ROOT}",
                "The API on the console's origin (through CloudFront)",
            )
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
        # What this stage was deployed with, each setting resolved: compare with
        # `cdk.json` before a redeploy (docs/deploy.md).
        for key, value in self.config.describe().items():
            cdk.CfnOutput(
                self,
                f"Setting{key[0].upper()}{key[1:]}",
                value="none" if value is None else value if isinstance(value, str) else json.dumps(value),
                description=f"deploy setting {key}",
            )
