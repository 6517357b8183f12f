"""The lab layer: scenario files and their step runner, the documented experiments, the
comparison with real ext4 and the time series a run records. Sits on the host layer."""
