# The rotating drum of tests/validation/test_rotating_drum.c in ParaView, walls included: the last
# snapshot's bodies as spheres of their true radius coloured by speed, and the drum (a cylinder wall)
# and its end plates as translucent surfaces, seen along the drum's axis. Written to a PNG:
#   xvfb-run -a -s "-screen 0 1600x1200x24" pvbatch docs/paraview_drum.py OUT/snapshots.xmf picture.png
# The snapshots' XDMF holds one grid per kind of object ("bodies", "plane walls", "cylinder walls",
# "mesh walls", ...); ExtractBlock picks them by the labels ParaView 5.11 gives the blocks.
import sys

from paraview.simple import (ColorBy, ExtractBlock, GetActiveViewOrCreate, GetAnimationScene,
                             GetColorTransferFunction, GetScalarBar, Glyph, Render, SaveScreenshot, Show,
                             XDMFReader)

xmf, png = sys.argv[1], sys.argv[2]
reader = XDMFReader(FileNames=[xmf])
scene = GetAnimationScene()
scene.UpdateAnimationUsingDataTimeSteps()
scene.AnimationTime = reader.TimestepValues[-1] if reader.TimestepValues else 0.0

# the blocks by their labels ("bodies[k]", "plane walls[k]", ...): selectors are the nodes' names
reader.UpdatePipeline(scene.AnimationTime)
tree = reader.GetDataInformation().DataInformation.GetHierarchy()
blocks = {}
for node in tree.GetChildNodes(0):
    label = tree.GetAttributeOrDefault(node, "label", "")
    kind = "bodies" if label.startswith("bodies") else "walls" if "walls" in label else "other"
    blocks.setdefault(kind, []).append("/Root/" + tree.GetNodeName(node))
bodies = ExtractBlock(Input=reader, Selectors=blocks["bodies"])
walls = ExtractBlock(Input=reader, Selectors=blocks["walls"])
glyph = Glyph(Input=bodies, GlyphType="Sphere")
glyph.OrientationArray = ["POINTS", "No orientation array"]
glyph.ScaleArray = ["POINTS", "radius"]
glyph.ScaleFactor = 2.0
glyph.GlyphMode = "All Points"
glyph.GlyphType.ThetaResolution = 16
glyph.GlyphType.PhiResolution = 16

view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [800, 800]
view.UseColorPaletteForBackground = 0
view.Background = [1.0, 1.0, 1.0]
view.OrientationAxesVisibility = 0
display = Show(glyph, view)
ColorBy(display, ("POINTS", "velocity", "Magnitude"))
display.SetScalarBarVisibility(view, True)
lut = GetColorTransferFunction("velocity")
lut.RescaleTransferFunction(0.0, 0.3)
bar = GetScalarBar(lut, view)
bar.Title, bar.ComponentTitle = "speed (m/s)", ""
bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]
wall_display = Show(walls, view)
wall_display.ColorArrayName = ["POINTS", ""]
wall_display.DiffuseColor = [0.55, 0.55, 0.6]
wall_display.Opacity = 0.25
Render(view)  # the first render resets the camera: place it after
# along the drum's axis (+y), from the -y side, so the drum turns clockwise in the picture
view.CameraPosition = [0.0, -0.75, 0.0]
view.CameraFocalPoint = [0.0, 0.0, 0.0]
view.CameraViewUp = [0.0, 0.0, 1.0]
view.CameraViewAngle = 30.0
Render(view)
SaveScreenshot(png, view, ImageResolution=[800, 800])
