"""SSD Lab's simulator, in layers: `flash` (the FTL engine and its theory) under `host`
(partition, file system, timing, traces) under `lab` (scenarios, experiments). Never imports
Qt; the layers contract in pyproject.toml holds each layer to the ones below it."""
