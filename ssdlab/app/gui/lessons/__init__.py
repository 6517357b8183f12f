"""The lesson player in the window (the lessons themselves are the top-level `lessons`
package): the panel with its welcome page and step page (lessonpanel.py, lessonhome.py,
lessonpage.py), runs and compares with their results (lessonruns.py) in a thread of their
own (lessonrun.py), the results drawn (lessonresults.py, runchartview.py,
predictionview.py), which controls a run uses (lessonfocus.py) and the glossary window.
Knows nothing of the workbench; ssdlab/app/gui/frame/dockedlessons.py docks it there."""
