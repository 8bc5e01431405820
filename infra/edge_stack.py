"""The stage's edge stack, `Aurra-<stage>-edge`, in us-east-1: what CloudFront needs there.

CloudFront's web ACLs exist only in us-east-1 (infra/components/console_firewall.py says how
the stage's own, region-agnostic stack finds this one's). Deployed once before the stage's
stack, and again when its rules change: `cdk deploy Aurra-<stage>-edge -c stage=<stage>`.
"""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
from constructs import Construct

from infra.components.console_firewall import ConsoleFirewall
from infra.config import AurraConfig

EDGE_REGION = "us-east-1"


class AurraEdgeStack(cdk.Stack):
    def __init__(self, scope: Construct, construct_id: str, *, config: AurraConfig, **kwargs: Any) -> None:
        super().__init__(
            scope,
            construct_id,
            description=f"Aurra memory service ({config.stage}): the console's web ACL, in {EDGE_REGION}",
            **kwargs,
        )
        self.firewall = ConsoleFirewall(self, "ConsoleFirewall", config=config)
        cdk.CfnOutput(
            self,
            "ConsoleWebAclArn",
            value=self.firewall.web_acl.attr_arn,
            description="Write into the stage's block of cdk.json as consoleWebAclArn",
        )
