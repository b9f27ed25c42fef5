"""Renderers of a runner.Report: text (humans), json (tools)."""
