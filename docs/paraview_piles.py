# The README's ParaView recipe as a pvbatch script: the last snapshot of a run as spheres of their
# true radius, coloured by speed, written to a PNG (the recipe: paraview_recipe.py).
#   xvfb-run -a -s "-screen 0 1600x1200x24" pvbatch docs/paraview_piles.py OUT/snapshots.xmf picture.png
# (Debian 12: apt-get install paraview xvfb.)
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paraview.simple import Render, SaveScreenshot  # noqa: E402
from paraview_recipe import open_last_snapshot, show_bodies  # noqa: E402

xmf, png = sys.argv[1], sys.argv[2]
bodies, _ = open_last_snapshot(xmf)
view = show_bodies(bodies, [1200, 500], 0.1)
Render(view)  # the first render resets the camera: place it after
# the two piles of the main job (x = -1 and x = 1 m) seen from the front, slightly from above
view.CameraPosition = [0.0, -2.9, 1.3]
view.CameraFocalPoint = [0.0, 0.0, 0.0]
view.CameraViewUp = [0.0, 0.0, 1.0]
view.CameraViewAngle = 30.0
Render(view)
SaveScreenshot(png, view, ImageResolution=[1200, 500])
