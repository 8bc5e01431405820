"""Functions: one Lambda per handler folder in functions/.

Each function gets its own role holding only what its capabilities in
`constants.CAPABILITIES` need, the shared layer, a place in the VPC, a JSON
log group with retention, active X-Ray tracing and the Powertools settings.
No AWS managed policy is attached: the roles carry their own statements.
"""

from __future__ import annotations

import json

import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra import constants as c
from infra.components.common import retention
from infra.components.database import Database
from infra.components.flags import FlagsAndSecrets
from infra.components.keys import EncryptionKeys
from infra.components.layer import architecture_for, runtime_for
from infra.components.network import Network
from infra.config import AurraConfig

# Lambda's JSON log levels, by Powertools' names.
APPLICATION_LOG_LEVEL = {
    "DEBUG": lambda_.ApplicationLogLevel.DEBUG,
    "INFO": lambda_.ApplicationLogLevel.INFO,
    "WARNING": lambda_.ApplicationLogLevel.WARN,
    "ERROR": lambda_.ApplicationLogLevel.ERROR,
}

# What Lambda needs to attach a function to the VPC (the same actions as the
# AWS managed AWSLambdaVPCAccessExecutionRole policy). EC2 does not scope
# these to resources that exist before the function does.
VPC_ACCESS_ACTIONS = [
    "ec2:CreateNetworkInterface",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeSubnets",
    "ec2:DeleteNetworkInterface",
    "ec2:AssignPrivateIpAddresses",
    "ec2:UnassignPrivateIpAddresses",
]


def _mapping_key(model: str) -> str:
    """A model id as a CloudFormation mapping key (letters and digits only)."""
    return "".join(part.capitalize() for part in model.split("-") if part.isalnum())


class AurraFunction(Construct):
    """One handler folder as a Lambda function, with its role and log group."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: AurraConfig,
        name: str,
        layer: lambda_.ILayerVersion,
        network: Network,
        security_groups: list[ec2.ISecurityGroup],
        environment: dict[str, str],
        logs_key: kms.IKey | None,
    ) -> None:
        super().__init__(scope, construct_id)
        self.name = name
        memory, timeout = c.SIZING[name]
        self.reserved_concurrency = config.reserved_concurrency.get(name) or None
        self.log_group = logs.LogGroup(
            self,
            "Logs",
            log_group_name=c.function_log_group_name(config.stage, name),
            retention=retention(config.log_retention_days),
            removal_policy=cdk.RemovalPolicy.DESTROY,
            encryption_key=logs_key,
        )
        self.role = iam.Role(
            self,
            "Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"Aurra {config.stage} {name} function",
            inline_policies={
                "Runtime": iam.PolicyDocument(
                    statements=[
                        iam.PolicyStatement(
                            sid="WriteOwnLogs",
                            actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                            resources=[self.log_group.log_group_arn],
                        ),
                        iam.PolicyStatement(
                            sid="AttachToVpc",
                            actions=VPC_ACCESS_ACTIONS,
                            resources=["*"],
                        ),
                    ]
                )
            },
        )
        self.function = lambda_.Function(
            self,
            "Function",
            function_name=c.function_name(config.stage, name),
            description=f"Aurra {name} ({config.stage})",
            runtime=runtime_for(config.python_version),
            architecture=architecture_for(config.architecture),
            handler=c.HANDLER,
            # Source only: a function's own code is one handler.py of 1-2 KB, compiled at a cold
            # start in under 0.3 ms (python3.12 here); the layer carries the bytecode that counts.
            code=lambda_.Code.from_asset(str(c.FUNCTIONS_DIR / name), exclude=c.ASSET_EXCLUDES),
            layers=[layer],
            role=self.role,
            memory_size=memory,
            timeout=cdk.Duration.seconds(timeout),
            vpc=network.vpc,
            vpc_subnets=network.app_subnets,
            security_groups=security_groups,
            environment=environment,
            tracing=lambda_.Tracing.ACTIVE,
            logging_format=lambda_.LoggingFormat.JSON,
            application_log_level_v2=APPLICATION_LOG_LEVEL[config.log_level],
            system_log_level_v2=lambda_.SystemLogLevel.WARN,
            log_group=self.log_group,
            # A ceiling on what a flood can take (and what the database
            # sees), and a floor no other function can take away.
            reserved_concurrent_executions=self.reserved_concurrency,
        )


class Functions(Construct):
    """All of Aurra's functions, wired to the database, flags and models."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: AurraConfig,
        network: Network,
        database: Database,
        flags: FlagsAndSecrets,
        layer: lambda_.ILayerVersion,
        keys: EncryptionKeys,
    ) -> None:
        super().__init__(scope, construct_id)
        self.config = config
        vpc = network.vpc

        # Two security groups: the proxy's clients, and the functions with
        # "db_direct" (migrate and maintenance), the only ones that talk to
        # the cluster itself.
        self.app_security_group = ec2.SecurityGroup(
            self,
            "AppSecurityGroup",
            vpc=vpc,
            description="Aurra API, authorizer and admin functions",
            allow_all_outbound=False,
        )
        self.migrate_security_group = ec2.SecurityGroup(
            self,
            "MigrateSecurityGroup",
            vpc=vpc,
            # predates maintenance; a new description would replace the group
            description="Aurra migrate function",
            allow_all_outbound=False,
        )
        database.allow_proxy_from(self.app_security_group, "PostgreSQL from the Aurra functions")
        database.allow_cluster_from(
            self.migrate_security_group, "PostgreSQL from the migrate and maintenance functions"
        )
        # HTTPS to AWS services: through the VPC endpoints when there are some, otherwise
        # anywhere (NAT). The internet itself (an Anthropic or OpenAI-compatible API, the
        # tenants' webhooks; through NAT) only for the functions that call a model provider or
        # deliver webhooks: a group of their own.
        if network.has_endpoints:
            https_peer = ec2.Peer.ipv4(network.cidr)
            https_what = "HTTPS to the VPC endpoints"
        else:
            https_peer = ec2.Peer.any_ipv4()
            https_what = "HTTPS to AWS services"
        for group in (self.app_security_group, self.migrate_security_group):
            group.add_egress_rule(https_peer, ec2.Port.tcp(443), https_what)
        self.internet_security_group: ec2.SecurityGroup | None = None
        if config.needs_internet and network.has_internet:
            self.internet_security_group = ec2.SecurityGroup(
                self,
                # the id and description it was created with: a new one replaces the group
                "ModelProviderSecurityGroup",
                vpc=vpc,
                description="Aurra functions that call a model provider on the internet",
                allow_all_outbound=False,
            )
            self.internet_security_group.add_egress_rule(
                ec2.Peer.any_ipv4(), ec2.Port.tcp(443), "HTTPS to model providers and webhooks (through NAT)"
            )
        # Webhooks only where the dispatcher has a way out; elsewhere setting one is a 422.
        self.webhooks_enabled = config.resolved_webhooks and self.internet_security_group is not None

        common = {
            c.ENV_STAGE: config.stage,
            c.ENV_DB_NAME: c.DB_NAME,
            c.ENV_CLASSIFIER: config.classifier,
            # the models a key may choose, and the daily budget a new key starts with
            c.ENV_CLASSIFIER_MODELS: json.dumps(list(config.classifier_models)),
            c.ENV_EXTRACTOR: config.resolved_extractor,
            c.ENV_EMBEDDER: config.embedder,
            c.ENV_EMBEDDING_DIM: str(config.resolved_embedding_dim),
            c.ENV_FLAG_SOURCE: "ssm",
            c.ENV_LEVEL2_PARAMETER: c.level2_parameter_name(config.stage),
            c.ENV_METRICS_NAMESPACE: c.METRICS_NAMESPACE,
            c.ENV_LOG_LEVEL: config.log_level,
            c.ENV_BLAS_THREADS: c.BLAS_THREADS,
            c.ENV_PYDANTIC_PLUGINS: c.PYDANTIC_PLUGINS_OFF,
            c.ENV_WEBHOOKS_ENABLED: "true" if self.webhooks_enabled else "false",
        }
        if config.daily_model_calls_limit is not None:
            common[c.ENV_DEFAULT_DAILY_MODEL_CALLS_LIMIT] = str(config.daily_model_calls_limit)
        if config.embedder == "bedrock":
            common[c.ENV_BEDROCK_EMBEDDING_MODEL] = config.bedrock_embedding_model_id
        if flags.anthropic_secret is not None:
            common[c.ENV_ANTHROPIC_SECRET_ARN] = flags.anthropic_secret.secret_arn
        if flags.openai_secret is not None:
            common[c.ENV_OPENAI_SECRET_ARN] = flags.openai_secret.secret_arn
            if config.openai_base_url:
                common[c.ENV_OPENAI_BASE_URL] = config.openai_base_url
            if config.openai_model:
                common[c.ENV_OPENAI_MODEL] = config.openai_model

        self.by_name: dict[str, AurraFunction] = {}
        for name in c.ALL_FUNCTIONS:
            capabilities = c.CAPABILITIES[name]
            environment = dict(common, **{c.ENV_SERVICE_NAME: c.service_name(config.stage, name)})
            if "cursors" in capabilities:
                environment[c.ENV_CURSOR_SECRET_ARN] = flags.cursor_secret.secret_arn
            for capability, user in (("db", c.DB_SERVICE_USER), ("db_keys", c.DB_KEY_ADMIN_USER)):
                if capability in capabilities:
                    environment[c.ENV_DB_HOST] = database.proxy.endpoint
                    environment[c.ENV_DB_USER] = user
            if "db_direct" in capabilities:
                # DDL goes to the writer itself, not through the proxy
                # (migrations and index builds take session-level locks).
                environment[c.ENV_DB_HOST] = database.cluster.cluster_endpoint.hostname
                environment[c.ENV_DB_SECRET_ARN] = database.secret.secret_arn
            if "db_logins" in capabilities:
                environment[c.ENV_DB_LOGIN_SECRET_ARNS] = cdk.Stack.of(self).to_json_string(
                    [secret.secret_arn for secret in database.login_secrets.values()]
                )
            if name == c.MAINTENANCE:
                # an index build fails cleanly a minute before Lambda would
                # kill the function mid-statement
                environment[c.ENV_MAINTENANCE_STATEMENT_TIMEOUT] = str(c.SIZING[name][1] - 60)
            fn = AurraFunction(
                self,
                name.capitalize(),
                config=config,
                name=name,
                layer=layer,
                network=network,
                security_groups=[
                    self.migrate_security_group if "db_direct" in capabilities else self.app_security_group,
                    *(
                        [self.internet_security_group]
                        if self.internet_security_group is not None
                        and (
                            "webhooks" in capabilities
                            or ("classifier" in capabilities and config.models_need_internet)
                            or (
                                "classifier_only" in capabilities
                                and config.classifier in ("anthropic", "openai")
                            )
                        )
                        else []
                    ),
                ],
                environment=environment,
                logs_key=keys.logs,
            )
            self.by_name[name] = fn
            self._grant(fn, capabilities, database=database, flags=flags)
            # Functions can only reach AWS services once the endpoints exist.
            for endpoint in network.endpoints:
                fn.function.node.add_dependency(endpoint)

    # --------------------------------------------------------------- access
    def _grant(
        self,
        fn: AurraFunction,
        capabilities: frozenset[str],
        *,
        database: Database,
        flags: FlagsAndSecrets,
    ) -> None:
        config = self.config
        stack = cdk.Stack.of(self)
        if "db" in capabilities:
            database.proxy.grant_connect(fn.role, c.DB_SERVICE_USER)
        if "db_keys" in capabilities:
            database.proxy.grant_connect(fn.role, c.DB_KEY_ADMIN_USER)
        if "db_direct" in capabilities:
            database.secret.grant_read(fn.role)
        if "db_logins" in capabilities:
            for secret in database.login_secrets.values():
                secret.grant_read(fn.role)
        if "flags" in capabilities:
            flags.level2_parameter.grant_read(fn.role)
        if "cursors" in capabilities:
            flags.cursor_secret.grant_read(fn.role)
        if capabilities & {"classifier", "classifier_only"}:
            # "classifier_only": the classifier's provider, not the extractor's.
            providers = (
                config.model_providers if "classifier" in capabilities else frozenset({config.classifier})
            )
            if flags.anthropic_secret is not None and "anthropic" in providers:
                flags.anthropic_secret.grant_read(fn.role)
            if flags.openai_secret is not None and "openai" in providers:
                flags.openai_secret.grant_read(fn.role)
            if "bedrock" in providers:
                for statement in self._claude_on_bedrock():
                    fn.role.add_to_policy(statement)
        if "embedder" in capabilities and config.embedder == "bedrock":
            fn.role.add_to_policy(
                iam.PolicyStatement(
                    sid="InvokeEmbeddingModel",
                    actions=["bedrock:InvokeModel"],
                    resources=[
                        f"arn:{stack.partition}:bedrock:{stack.region}::foundation-model/"
                        f"{config.bedrock_embedding_model_id}"
                    ],
                )
            )

    def _claude_on_bedrock(self) -> list[iam.PolicyStatement]:
        """Claude through the stage's inference profiles, and nothing else: for each model a key
        may choose (`classifierModels`), the one profile that serves it from the stack's region
        (bedrock_profiles.py: the region's geography, else `global.`), and the model itself in
        that profile's destination regions, only when invoked through that profile (the
        `bedrock:InferenceProfileArn` condition). The region is a deploy-time value unless the
        stack names one, so the profile and the regions come from a mapping by region."""
        stack = cdk.Stack.of(self)
        region = stack.region
        mapping = self._bedrock_mapping()
        statements = []
        for index, model in enumerate(self.config.classifier_models):
            key = _mapping_key(model)
            profile = mapping.find_in_map(region, f"{key}Profile")
            profile_arn = (
                f"arn:{stack.partition}:bedrock:{region}:{stack.account}:inference-profile/{profile}"
            )
            statements += [
                iam.PolicyStatement(
                    sid=f"InvokeClaudeProfile{index}",
                    actions=["bedrock:InvokeModel"],
                    resources=[profile_arn],
                ),
                iam.PolicyStatement(
                    sid=f"InvokeClaudeThroughProfile{index}",
                    actions=["bedrock:InvokeModel"],
                    resources=cdk.Fn.split(",", mapping.find_in_map(region, f"{key}Models")),
                    conditions={"StringEquals": {"bedrock:InferenceProfileArn": profile_arn}},
                ),
            ]
        return statements

    def _bedrock_mapping(self) -> cdk.CfnMapping:
        """Region -> each allowed model's inference profile id and its foundation models' ARNs
        (comma-separated). Lazy: a stack with a known region gets the values themselves."""
        existing = self.node.try_find_child("ClaudeProfiles")
        if isinstance(existing, cdk.CfnMapping):
            return existing
        stack = cdk.Stack.of(self)
        regions = c.BEDROCK_CLAUDE_REGIONS
        if not cdk.Token.is_unresolved(stack.region):
            regions = (stack.region,)
        mapping: dict[str, dict[str, str]] = {}
        for region in regions:
            entry = {}
            for model in self.config.classifier_models:
                bedrock_id = c.CLAUDE_MODELS[model][0]
                prefix = c.bedrock_profile_prefix(model, region)
                if prefix is None:
                    if len(regions) == 1:
                        raise ValueError(
                            f"classifierModels: no Bedrock inference profile serves {model} from {region}; "
                            "allow another model in this stage (aurra_core/classifiers/bedrock_profiles.py)"
                        )
                    continue  # a deploy there fails on the missing key, naming it
                key = _mapping_key(model)
                entry[f"{key}Profile"] = f"{prefix}.{bedrock_id}"
                entry[f"{key}Models"] = ",".join(
                    f"arn:aws:bedrock:{destination}::foundation-model/{bedrock_id}"
                    for destination in c.bedrock_foundation_model_regions(model, region)
                )
            mapping[region] = entry
        return cdk.CfnMapping(self, "ClaudeProfiles", mapping=mapping, lazy=True)

    def grant_api_key_management(self, *, rest_api_id: str, usage_plan_id: str) -> None:
        """Let the admin function create customers' API keys in the usage plan.

        API keys are regional, not per API: the keys of every stage in the
        account and region share one namespace. The admin function tags each
        key it creates with its stage and may read, change or delete only
        keys carrying that tag, so one stage's admin cannot disable
        another's keys."""
        admin = self.by_name[c.ADMIN]
        stack = cdk.Stack.of(self)
        stage = self.config.stage
        gateway = f"arn:{stack.partition}:apigateway:{stack.region}::"
        tag = c.API_KEY_STAGE_TAG
        statements = [
            iam.PolicyStatement(
                sid="CreateStageApiKeys",
                actions=["apigateway:POST"],
                resources=[f"{gateway}/apikeys"],
                conditions={"StringEquals": {f"aws:RequestTag/{tag}": stage}},
            ),
            iam.PolicyStatement(
                sid="TagStageApiKeysOnCreate",
                actions=["apigateway:PUT", "apigateway:POST"],
                resources=[f"{gateway}/tags/*"],
                conditions={"StringEquals": {f"aws:RequestTag/{tag}": stage}},
            ),
            iam.PolicyStatement(
                # finding a key by name (metadata only: values are not listed)
                sid="ListApiKeys",
                actions=["apigateway:GET"],
                resources=[f"{gateway}/apikeys"],
            ),
            iam.PolicyStatement(
                sid="ManageStageApiKeys",
                actions=["apigateway:GET", "apigateway:PATCH", "apigateway:DELETE"],
                resources=[f"{gateway}/apikeys/*"],
                conditions={"StringEquals": {f"aws:ResourceTag/{tag}": stage}},
            ),
            iam.PolicyStatement(
                sid="ManageUsagePlanKeys",
                actions=["apigateway:POST", "apigateway:GET", "apigateway:DELETE"],
                resources=[
                    f"{gateway}/usageplans/{usage_plan_id}/keys",
                    f"{gateway}/usageplans/{usage_plan_id}/keys/*",
                ],
            ),
        ]
        for statement in statements:
            admin.role.add_to_policy(statement)
        admin.function.add_environment(c.ENV_USAGE_PLAN_ID, usage_plan_id)
        admin.function.add_environment(c.ENV_REST_API_ID, rest_api_id)

    def __getitem__(self, name: str) -> lambda_.Function:
        return self.by_name[name].function
