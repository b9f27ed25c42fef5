"""The JSON report (schema gpudoctor.report/1, documented in docs/report-schema.md)."""

import json


def render(report, stream):
    json.dump(report.to_dict(), stream, indent=2, sort_keys=False)
    stream.write("\n")
