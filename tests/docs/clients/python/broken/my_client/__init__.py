"""The client library docs/testing.md's Python example imports (``my_client.assignor``): a stand-in."""
