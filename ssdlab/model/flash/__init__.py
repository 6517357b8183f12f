"""The flash layer: geometry, the compiled FTL (mapping, GC, TRIM, wear), the drive around
it, the plain-Python reference FTL, block-level workloads and the analytic models.

Imports nothing from the host or lab layers."""
