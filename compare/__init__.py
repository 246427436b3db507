"""Judging assignments: metrics, balance notions, and the verdict of ``check``.

Library code only (no printing): tests, the CLI, sweeps and notebooks all take
their numbers from here.
"""
