"""Registers the adapters for models outside the engine (imported by the registry on first
lookup): `python:module:function` agents, and any other name as a LiteLLM model for both the
agent and the user simulator (the fallback resolvers, prefix "")."""

from evals.engine.llm.agents import litellm_agent_resolver, python_agent_resolver
from evals.engine.llm.users import litellm_user_resolver
from evals.engine.registry import register_agent_resolver, register_user_resolver

register_agent_resolver("python:", python_agent_resolver)
register_agent_resolver("", litellm_agent_resolver)
register_user_resolver("", litellm_user_resolver)
