"""Aurra's AWS infrastructure, as a CDK (Python) app.

`infra/app.py` is the entry point (see `cdk.json`); `infra/application.py`
builds the app; `infra/stack.py` composes one construct per capability from
`infra/components/`. Every name lives in `infra/constants.py`, every tunable
in `infra/config.py`. Nothing here imports the service's layer.
"""
