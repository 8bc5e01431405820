"""Console firewall: a CLOUDFRONT-scope web ACL for the console's distribution.

CloudFront takes only web ACLs of scope CLOUDFRONT, and AWS keeps those in us-east-1 alone,
whatever the region of the stage. The stage's own stack stays region-agnostic (synth needs no
account and no region), so this web ACL lives in a small stack of its own, `Aurra-<stage>-edge`,
pinned to us-east-1 (infra/edge_stack.py), and the distribution names it by its ARN, the edge
stack's `ConsoleWebAclArn` output, kept in the stage's block of cdk.json (`consoleWebAclArn`).
A stage deployed before its edge stack serves the console without it, and synth says so.

The rules are the API's own (api.py, `web_acl`): IP reputation, known bad inputs, a rate per
Authorization value, a rate per address for requests without a well-formed key and a far
higher one for keyed requests, bodies over 64 KiB. At the edge they see each viewer's own
address; behind CloudFront the API's regional web ACL sees CloudFront's. Its log redacts what
the API's does (api.py, `log_web_acl`): the console's searches are query strings.
"""

from __future__ import annotations

from constructs import Construct

from infra import constants as c
from infra.components.api import log_web_acl, web_acl
from infra.config import AurraConfig


class ConsoleFirewall(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, config: AurraConfig) -> None:
        super().__init__(scope, construct_id)
        self.web_acl = web_acl(
            self, "WebAcl", config=config, name=c.console_web_acl_name(config.stage), kind="CLOUDFRONT"
        )
        self.logs = log_web_acl(
            self,
            self.web_acl,
            config=config,
            log_group_name=c.console_waf_log_group_name(config.stage),
            encryption_key=None,
            ids=("Logs", "Logging"),
        )
