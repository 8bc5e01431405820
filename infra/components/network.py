"""Network: the VPC the functions and the database live in.

Default: a new VPC without internet access. Functions sit in isolated "app"
subnets and reach AWS services through interface endpoints; the database
sits in isolated "data" subnets. With the anthropic classifier the functions
must reach the Anthropic API, so the "app" subnets get a route to NAT
gateways instead (the database stays isolated).

With `vpcId` in context an existing VPC is used (a lookup: the stack then
needs an account and region, and the result is cached in cdk.context.json).
Functions go to its private subnets with egress if it has any, else to its
isolated ones; endpoints are only created when `createVpcEndpoints` is true.
"""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra.components.common import retention
from infra.components.keys import EncryptionKeys
from infra.config import AurraConfig


class Network(Construct):
    def __init__(
        self, scope: Construct, construct_id: str, *, config: AurraConfig, keys: EncryptionKeys
    ) -> None:
        super().__init__(scope, construct_id)
        self.keys = keys
        self.endpoints: list[ec2.InterfaceVpcEndpoint] = []
        if config.vpc_id:
            self.vpc: ec2.IVpc = ec2.Vpc.from_lookup(self, "Vpc", vpc_id=config.vpc_id)
            app_type = (
                ec2.SubnetType.PRIVATE_WITH_EGRESS
                if self.vpc.private_subnets
                else ec2.SubnetType.PRIVATE_ISOLATED
            )
            data_type = (
                ec2.SubnetType.PRIVATE_ISOLATED
                if self.vpc.isolated_subnets
                else ec2.SubnetType.PRIVATE_WITH_EGRESS
            )
            self.app_subnets = ec2.SubnetSelection(subnet_type=app_type)
            self.data_subnets = ec2.SubnetSelection(subnet_type=data_type)
            self.has_internet = app_type == ec2.SubnetType.PRIVATE_WITH_EGRESS
            self.cidr = self.vpc.vpc_cidr_block
        else:
            self.vpc = self._new_vpc(config)
            self.app_subnets = ec2.SubnetSelection(subnet_group_name="app")
            self.data_subnets = ec2.SubnetSelection(subnet_group_name="data")
            self.has_internet = config.needs_internet
            # the literal, not the VPC's CidrBlock attribute: rules stay
            # readable in the template and checkable by cdk-nag
            self.cidr = config.vpc_cidr

        self.has_endpoints = config.resolved_create_vpc_endpoints
        if self.has_endpoints:
            self._add_endpoints(config)

    # ----------------------------------------------------------------- new VPC
    def _new_vpc(self, config: AurraConfig) -> ec2.Vpc:
        subnets = []
        if config.needs_internet:
            subnets.append(
                ec2.SubnetConfiguration(name="public", subnet_type=ec2.SubnetType.PUBLIC, cidr_mask=24)
            )
            app_type = ec2.SubnetType.PRIVATE_WITH_EGRESS
        else:
            app_type = ec2.SubnetType.PRIVATE_ISOLATED
        subnets.append(ec2.SubnetConfiguration(name="app", subnet_type=app_type, cidr_mask=22))
        subnets.append(
            ec2.SubnetConfiguration(name="data", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED, cidr_mask=24)
        )
        vpc = ec2.Vpc(
            self,
            "Vpc",
            ip_addresses=ec2.IpAddresses.cidr(config.vpc_cidr),
            max_azs=config.max_azs,
            nat_gateways=config.resolved_nat_gateways if config.needs_internet else 0,
            subnet_configuration=subnets,
            enable_dns_hostnames=True,
            enable_dns_support=True,
        )
        # Rejected flows only: what a misconfigured security group looks like,
        # at a fraction of the cost of logging every flow.
        flow_logs = logs.LogGroup(
            self,
            "FlowLogs",
            retention=retention(config.log_retention_days),
            removal_policy=cdk.RemovalPolicy.DESTROY,
            encryption_key=self.keys.logs,
        )
        vpc.add_flow_log(
            "FlowLog",
            destination=ec2.FlowLogDestination.to_cloud_watch_logs(flow_logs),
            traffic_type=ec2.FlowLogTrafficType.REJECT,
        )
        return vpc

    # --------------------------------------------------------------- endpoints
    def _add_endpoints(self, config: AurraConfig) -> None:
        self.endpoint_security_group = ec2.SecurityGroup(
            self,
            "EndpointSecurityGroup",
            vpc=self.vpc,
            description="Aurra VPC endpoints: HTTPS from inside the VPC",
            allow_all_outbound=False,
        )
        self.endpoint_security_group.add_ingress_rule(
            ec2.Peer.ipv4(self.cidr), ec2.Port.tcp(443), "HTTPS from the VPC"
        )
        services = {
            "SecretsManager": ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER,
            "Ssm": ec2.InterfaceVpcEndpointAwsService.SSM,
            # the dispatcher's PutEvents to the stage's bus. No CloudWatch Logs endpoint: Lambda
            # ships the functions' output (logs and EMF metrics) itself, and nothing in the
            # VPC calls the Logs API.
            "Events": ec2.InterfaceVpcEndpointAwsService.EVENTBRIDGE,
            "XRay": ec2.InterfaceVpcEndpointAwsService.XRAY,
            # the API Gateway management API: the admin function creates
            # customers' API keys and adds them to the usage plan
            "ApiGateway": ec2.InterfaceVpcEndpointAwsService("apigateway"),
        }
        if config.uses_bedrock:
            services["BedrockRuntime"] = ec2.InterfaceVpcEndpointAwsService.BEDROCK_RUNTIME
        for name, service in services.items():
            self.endpoints.append(
                self.vpc.add_interface_endpoint(
                    f"{name}Endpoint",
                    service=service,
                    subnets=self.app_subnets,
                    private_dns_enabled=True,
                    security_groups=[self.endpoint_security_group],
                    open=False,
                )
            )
