"""Claude on Amazon Bedrock: which cross-region inference profile serves a model in a region.

Newer Claude models are invoked through an inference profile, whose id is the model's Bedrock id
behind the prefix of a geography: `us.` (routes to US regions), `eu.`, `jp.`, `au.`, `apac.`, or
`global.` (any commercial region). A stage calls the profile of its own region's geography when
the model offers one, so its memories stay in that geography; else the model's `global.`
profile where it offers one; else the model is not offered there (None).

The one table of them, read by the classifiers and extractors (the id they call) and by the CDK
app (infra/components/functions.py: the write role may invoke exactly these profiles and their
destination regions' foundation models). Standard library only, and nothing imported: the CDK
app loads this file by path, without the layer's dependencies. Check a model's page in the
Bedrock documentation ("Supported Regions and models for inference profiles") when adding one:
profiles and their regions change.
"""

from __future__ import annotations

# The key's setting (the Anthropic model id) -> the model's Bedrock id and the geographies whose
# inference profile serves it, in no particular order.
CLAUDE_MODELS: dict[str, tuple[str, tuple[str, ...]]] = {
    "claude-haiku-4-5-20251001": (
        "anthropic.claude-haiku-4-5-20251001-v1:0",
        ("us", "eu", "jp", "au", "global"),
    ),
    "claude-sonnet-4-5-20250929": (
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
        ("us", "eu", "jp", "au", "global"),
    ),
    "claude-opus-4-1-20250805": ("anthropic.claude-opus-4-1-20250805-v1:0", ("us",)),
}

# Each geography's destination regions: where its profile may run a request (the write role may
# invoke the model there, through that profile only). `global` runs anywhere: its foundation
# model's ARN has no region ("").
DESTINATIONS: dict[str, tuple[str, ...]] = {
    "us": ("us-east-1", "us-east-2", "us-west-1", "us-west-2"),
    "eu": (
        "eu-central-1",
        "eu-central-2",
        "eu-north-1",
        "eu-south-1",
        "eu-south-2",
        "eu-west-1",
        "eu-west-2",
        "eu-west-3",
    ),
    "jp": ("ap-northeast-1", "ap-northeast-3"),
    "au": ("ap-southeast-2", "ap-southeast-4"),
    "apac": (
        "ap-northeast-1",
        "ap-northeast-2",
        "ap-northeast-3",
        "ap-south-1",
        "ap-south-2",
        "ap-southeast-1",
        "ap-southeast-2",
        "ap-southeast-4",
    ),
    "global": ("",),
}

# The regions a stage may run in with Claude on Bedrock (the CDK app maps each one).
REGIONS = (
    "us-east-1",
    "us-east-2",
    "us-west-1",
    "us-west-2",
    "ca-central-1",
    "sa-east-1",
    "eu-central-1",
    "eu-central-2",
    "eu-north-1",
    "eu-south-1",
    "eu-south-2",
    "eu-west-1",
    "eu-west-2",
    "eu-west-3",
    "ap-northeast-1",
    "ap-northeast-2",
    "ap-northeast-3",
    "ap-south-1",
    "ap-south-2",
    "ap-southeast-1",
    "ap-southeast-2",
    "ap-southeast-3",
    "ap-southeast-4",
)


def geographies_of(region: str) -> tuple[str, ...]:
    """The geographies whose profiles a stage in `region` may call, its own first."""
    if region.startswith("us-"):
        own: tuple[str, ...] = ("us",)
    elif region.startswith("eu-"):
        own = ("eu",)
    elif region in ("ap-northeast-1", "ap-northeast-3"):
        own = ("jp", "apac")
    elif region in ("ap-southeast-2", "ap-southeast-4"):
        own = ("au", "apac")
    elif region.startswith("ap-"):
        own = ("apac",)
    else:
        own = ()
    return (*own, "global")


def profile_prefix(model: str, region: str) -> str | None:
    """The geography of the profile a stage in `region` calls `model` through, None when no
    profile serves it there (or the model is not in the table)."""
    found = CLAUDE_MODELS.get(model)
    if found is None:
        return None
    offered = found[1]
    return next((geography for geography in geographies_of(region) if geography in offered), None)


def inference_profile_id(model: str, region: str) -> str | None:
    """The id to invoke `model` with from `region`, e.g. `eu.anthropic.claude-haiku-4-5-...`."""
    prefix = profile_prefix(model, region)
    return None if prefix is None else f"{prefix}.{CLAUDE_MODELS[model][0]}"


def foundation_model_regions(model: str, region: str) -> tuple[str, ...]:
    """Where the profile of `model` from `region` may run it: its destination regions, with the
    source region itself ("" for a global profile's region-less foundation model ARN)."""
    prefix = profile_prefix(model, region)
    if prefix is None:
        return ()
    return tuple(dict.fromkeys((region, *DESTINATIONS[prefix])))
