"""Helpers of the infrastructure tests: build and synthesize the app.

Synthesis is the slow part (seconds per app, on the jsii runtime), so
conftest.py synthesizes each configuration once per test session. Asset
bundling is skipped (`aws:cdk:bundling-stacks` = []), so no pip run happens
there; the test marked `layer_build` builds the layer for real.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

# The jsii runtime prints a banner about the machine's Node.js version on
# every start; it says nothing about Aurra.
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "18,20")


def base_context(**overrides: Any) -> dict[str, Any]:
    """cdk.json's context (what the CLI passes), bundling off, plus overrides."""
    context = json.loads((REPO_ROOT / "cdk.json").read_text())["context"]
    context["aws:cdk:bundling-stacks"] = []
    context.update(overrides)
    return context


@dataclass
class Synth:
    app: Any
    stack: Any
    template: dict[str, Any]
    outdir: Path

    @property
    def resources(self) -> dict[str, dict[str, Any]]:
        return self.template["Resources"]

    def of_type(self, resource_type: str) -> dict[str, dict[str, Any]]:
        return {k: v for k, v in self.resources.items() if v["Type"] == resource_type}

    def assertions(self):
        from aws_cdk.assertions import Template

        return Template.from_json(self.template)


def synthesize(outdir: Path, **overrides: Any) -> Synth:
    from infra.application import create_app

    app, stack = create_app(base_context(**overrides), nag=False, outdir=str(outdir))
    assembly = app.synth()
    template = assembly.get_stack_by_name(stack.stack_name).template
    return Synth(app=app, stack=stack, template=template, outdir=outdir)


EXISTING_VPC = "vpc-0123456789abcdef0"
PROD_DOMAIN = "api.example.com"
PROD_CERTIFICATE = "arn:aws:acm:eu-west-1:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"
PROD_COPY_VAULT = "arn:aws:backup:eu-west-1:210987654321:backup-vault:aurra-copies"


def existing_vpc_lookup(account: str, region: str) -> dict[str, Any]:
    """What the CDK CLI caches in cdk.context.json after looking the VPC up:
    a VPC with private subnets (NAT) and isolated ones, in two AZs."""

    def subnet(i: int, az: str, cidr: str) -> dict[str, str]:
        return {
            "subnetId": f"subnet-{i:017x}",
            "cidr": cidr,
            "availabilityZone": f"{region}{az}",
            "routeTableId": f"rtb-{i:017x}",
        }

    key = (
        f"vpc-provider:account={account}:filter.vpc-id={EXISTING_VPC}"
        f":region={region}:returnAsymmetricSubnets=true"
    )
    return {
        key: {
            "vpcId": EXISTING_VPC,
            "vpcCidrBlock": "10.80.0.0/16",
            "ownerAccountId": account,
            "availabilityZones": [],
            "subnetGroups": [
                {
                    "name": "Private",
                    "type": "Private",
                    "subnets": [subnet(1, "a", "10.80.0.0/20"), subnet(2, "b", "10.80.16.0/20")],
                },
                {
                    "name": "Isolated",
                    "type": "Isolated",
                    "subnets": [subnet(3, "a", "10.80.32.0/24"), subnet(4, "b", "10.80.33.0/24")],
                },
            ],
        }
    }
