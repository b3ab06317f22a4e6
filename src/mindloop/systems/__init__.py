"""The research systems, one package each: tom, mindpower, mindclaw, omnitom, cobel, tos (see docs/architecture.md)."""
