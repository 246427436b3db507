"""The verdicts before the one judge (frozen at commit 71d9755): the reference for tests/compare/test_judge.py."""
