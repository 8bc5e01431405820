"""Aurra admin function: API key operations for a deployed stage.

No public route reaches it; operators invoke it directly (`aurra keys create
--stage <stage>`). Placeholder until the key lifecycle issue lands.
"""


def lambda_handler(event, context):
    raise NotImplementedError("admin key operations arrive with the key lifecycle issue")
