"""The charts below the block maps: a tab per chart (charts.py), each a QtCharts view of a
run's time series with other runs overlaid (seriescharts.py) or the Steps table
(steptable.py), with readable axes (chartaxes.py) and the legend of overlaid runs
(runlegend.py)."""
