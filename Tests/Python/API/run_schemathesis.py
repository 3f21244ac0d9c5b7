"""Runs the Schemathesis CLI (arguments as for `schemathesis`) with the hooks of
schemathesis_hooks.py.

Also works around a CPython 3.11.7 bug ("SystemError: AST constructor recursion depth
mismatch") that Hypothesis can hit while describing a lambda for a strategy's repr; that
description is only cosmetic.
"""
import sys

try:
    import hypothesis.internal.lambda_sources as lambda_sources

    _describe = lambda_sources._lambda_description

    def _safe_describe(f, *args, **kwargs):
        try:
            return _describe(f, *args, **kwargs)
        except SystemError:
            return "lambda: <unknown>"

    lambda_sources._lambda_description = _safe_describe
except (ImportError, AttributeError):
    pass

import schemathesis.cli  # noqa: E402

import schemathesis_hooks  # noqa: E402,F401  (registers the hooks)

sys.argv[0] = "schemathesis"
schemathesis.cli.schemathesis()
