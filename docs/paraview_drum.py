# The rotating drum of tests/validation/test_rotating_drum.c in ParaView, walls included: the last
# snapshot's bodies as spheres of their true radius coloured by speed (paraview_recipe.py), and the
# drum (a cylinder wall) and its end plates as translucent surfaces, seen along the drum's axis.
#   xvfb-run -a -s "-screen 0 1600x1200x24" pvbatch docs/paraview_drum.py OUT/snapshots.xmf picture.png
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paraview.simple import Render, SaveScreenshot, Show  # noqa: E402
from paraview_recipe import open_last_snapshot, show_bodies  # noqa: E402

xmf, png = sys.argv[1], sys.argv[2]
bodies, walls = open_last_snapshot(xmf)
view = show_bodies(bodies, [800, 800], 0.3)
walls = Show(walls, view)
walls.ColorArrayName = ["POINTS", ""]
walls.DiffuseColor = [0.55, 0.55, 0.6]
walls.Opacity = 0.25
Render(view)  # the first render resets the camera: place it after
# along the drum's axis (+y), from the -y side
view.CameraPosition = [0.0, -0.75, 0.0]
view.CameraFocalPoint = [0.0, 0.0, 0.0]
view.CameraViewUp = [0.0, 0.0, 1.0]
view.CameraViewAngle = 30.0
Render(view)
SaveScreenshot(png, view, ImageResolution=[800, 800])
