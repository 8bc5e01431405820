"""Aurra inside the agent frameworks, each behind an optional extra of the `aurra` package:

- `aurra.integrations.langgraph`: `AurraStore`, a LangGraph `BaseStore` (`pip install 'aurra[langgraph]'`).
- `aurra.integrations.openai_agents`: `aurra_tools()`, function tools for the OpenAI Agents SDK
  (`pip install 'aurra[openai-agents]'`).
- `aurra.integrations.strands`: `aurra_tools()`, tools for Strands Agents (`pip install 'aurra[strands]'`).

Each is a thin layer over the SDK's client: HTTP, retries, idempotency and errors are the SDK's.
`aurra.integrations.tools` holds what the tool sets share (their descriptions and answers).
"""
