"""Small helpers shared by the components."""

from __future__ import annotations

from aws_cdk import Acknowledgment, Validations
from aws_cdk import aws_logs as logs
from constructs import IConstruct

_RETENTION = {
    1: "ONE_DAY",
    3: "THREE_DAYS",
    5: "FIVE_DAYS",
    7: "ONE_WEEK",
    14: "TWO_WEEKS",
    30: "ONE_MONTH",
    60: "TWO_MONTHS",
    90: "THREE_MONTHS",
    120: "FOUR_MONTHS",
    150: "FIVE_MONTHS",
    180: "SIX_MONTHS",
    365: "ONE_YEAR",
    400: "THIRTEEN_MONTHS",
    545: "EIGHTEEN_MONTHS",
    731: "TWO_YEARS",
    1096: "THREE_YEARS",
    1827: "FIVE_YEARS",
    2192: "SIX_YEARS",
    2557: "SEVEN_YEARS",
    2922: "EIGHT_YEARS",
    3288: "NINE_YEARS",
    3653: "TEN_YEARS",
}


def retention(days: int) -> logs.RetentionDays:
    """The RetentionDays member for a number of days (validated in config)."""
    try:
        return getattr(logs.RetentionDays, _RETENTION[days])
    except KeyError:
        raise ValueError(f"CloudWatch Logs has no retention of {days} days") from None


def acknowledge(scope: IConstruct, rule: str, reason: str) -> None:
    """Acknowledge one cdk-nag finding on `scope` and everything below it.

    `rule` is the finding's full id, e.g. `AwsSolutions-IAM5[Resource::*]`.
    The reason is recorded in the construct's metadata for the audit trail.
    """
    if not reason.strip():
        raise ValueError(f"{rule}: an acknowledgment needs a reason")
    Validations.of(scope).acknowledge(Acknowledgment(id=rule, reason=reason))
