"""The server-wide Level 2 switch: SSM Parameter Store in AWS, the environment locally."""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol

from aurra_core.runtime.config import ServiceConfig, get_config


class FlagSource(Protocol):
    def level2_enabled(self) -> bool: ...


class EnvFlagSource:
    def __init__(self, enabled: bool) -> None:
        self._enabled = enabled

    def level2_enabled(self) -> bool:
        return self._enabled


class SsmFlagSource:
    """Reads `/aurra/<stage>/level2_enabled` with a short cache; anything but "true" is off."""

    def __init__(self, parameter: str, max_age_s: int) -> None:
        self._parameter = parameter
        self._max_age_s = max_age_s

    def level2_enabled(self) -> bool:
        from aws_lambda_powertools.utilities import parameters

        try:
            value = parameters.get_parameter(self._parameter, max_age=self._max_age_s)
        except parameters.exceptions.GetParameterError:
            # Precision first: if the switch cannot be read, Level 2 stays off.
            return False
        return str(value).strip().lower() == "true"


def create_flag_source(config: ServiceConfig) -> FlagSource:
    if config.flag_source == "ssm":
        return SsmFlagSource(config.level2_parameter_name, config.flag_cache_s)
    return EnvFlagSource(config.level2_enabled)


@lru_cache(maxsize=1)
def get_flag_source() -> FlagSource:
    return create_flag_source(get_config())
