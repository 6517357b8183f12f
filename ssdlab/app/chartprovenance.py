"""Provenance inside every figure file: the tool's version, the source revision when known,
and what reproduces the figure (scenario file and its sha256, settings, seeds), written
where each format keeps such things: PDF Subject and Keywords, SVG <metadata> (Description,
Keywords), PNG text chunks. The CSV's JSON sidecar carries the same dict.

PDF and SVG are bit-for-bit repeatable by default: no creation date (matplotlib's own, or
SOURCE_DATE_EPOCH's), a fixed SVG id salt (chartexport.PRINT_STYLE); `timestamp=True` adds
the moment of writing, in UTC, for those who want it.
"""

from __future__ import annotations

import datetime
import io
import json

import matplotlib

from ssdlab.model.provenance import stamp, version

PNG_KEY = "ssdlab-provenance"


def provenance(chart: str, extra: dict | None) -> dict:
    """The whole provenance of a figure: version, revision, chart, then what the caller
    knows (scenario, session or sweep file with its sha256, settings, seeds)."""
    return {**stamp(), "chart": chart, **(extra or {})}


def summary(prov: dict) -> str:
    """One line for a PDF's Subject: chart, version, and the file the data came from."""
    source = next((v for k, v in prov.items() if isinstance(v, dict) and "file" in v), None)
    text = f"SSD Lab {prov.get('ssdlab_version')} chart {prov.get('chart')}"
    if prov.get("source_revision"):
        text += f" (source {prov['source_revision']})"
    if source:
        text += f" from {source['file']}" + (f" sha256 {source['sha256']}"
                                              if source.get("sha256") else "")
    return text


def metadata(fmt: str, prov: dict, timestamp: bool = False) -> dict:
    """matplotlib savefig metadata for `fmt` carrying `prov`; no date unless timestamp."""
    creator = f"SSD Lab {version()}"
    text = json.dumps(prov, sort_keys=True, default=str)
    now = datetime.datetime.now(datetime.UTC).replace(microsecond=0) if timestamp else None
    if fmt == "pdf":
        return {"Creator": creator, "Subject": summary(prov), "Keywords": text,
                "CreationDate": now, "ModDate": None}
    if fmt == "svg":
        return {"Creator": creator, "Description": text, "Keywords": ["ssdlab"],
                "Date": now.isoformat() if now else None}
    out = {"Software": creator, "Description": summary(prov), PNG_KEY: text}
    if now:
        out["Creation Time"] = now.isoformat()
    return out


def save(fig, fmt: str, dpi: int, style: dict, prov: dict, timestamp: bool = False) -> bytes:
    """The figure's file content in png, svg or pdf, provenance inside."""
    buf = io.BytesIO()
    with matplotlib.rc_context(style):
        fig.savefig(buf, format=fmt, dpi=dpi, metadata=metadata(fmt, prov, timestamp))
    return buf.getvalue()
