"""Agents' own extension points: setup for each client, the agent hook, the MCP server."""
