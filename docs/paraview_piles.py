# The README's ParaView recipe as a pvbatch script: the last snapshot of a run as spheres of their
# true radius, coloured by speed, written to a PNG.
#   xvfb-run -a -s "-screen 0 1600x1200x24" pvbatch docs/paraview_piles.py OUT/snapshots.xmf picture.png
# (Debian 12: apt-get install paraview xvfb.) Glyph type Sphere, scale array radius, scale factor 2
# (ParaView's sphere source has radius 0.5), glyph mode "All Points" (the default draws at most 5,000).
import sys

from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetAnimationScene, GetColorTransferFunction, Glyph,
                             GetScalarBar, Render, SaveScreenshot, Show, XDMFReader)

xmf, png = sys.argv[1], sys.argv[2]
reader = XDMFReader(FileNames=[xmf])
scene = GetAnimationScene()
scene.UpdateAnimationUsingDataTimeSteps()
scene.AnimationTime = reader.TimestepValues[-1] if reader.TimestepValues else 0.0

glyph = Glyph(Input=reader, GlyphType="Sphere")
glyph.OrientationArray = ["POINTS", "No orientation array"]
glyph.ScaleArray = ["POINTS", "radius"]
glyph.ScaleFactor = 2.0
glyph.GlyphMode = "All Points"
glyph.GlyphType.ThetaResolution = 16
glyph.GlyphType.PhiResolution = 16

view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [1200, 500]
view.UseColorPaletteForBackground = 0
view.Background = [1.0, 1.0, 1.0]
view.OrientationAxesVisibility = 0
display = Show(glyph, view)
ColorBy(display, ("POINTS", "velocity", "Magnitude"))
display.SetScalarBarVisibility(view, True)
lut = GetColorTransferFunction("velocity")
lut.RescaleTransferFunction(0.0, 0.1)
bar = GetScalarBar(lut, view)
bar.Title, bar.ComponentTitle = "speed (m/s)", ""
bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]
Render(view)  # the first render resets the camera: place it after
# the two piles of the main job (x = -1 and x = 1 m) seen from the front, slightly from above
view.CameraPosition = [0.0, -2.9, 1.3]
view.CameraFocalPoint = [0.0, 0.0, 0.0]
view.CameraViewUp = [0.0, 0.0, 1.0]
view.CameraViewAngle = 30.0
Render(view)
SaveScreenshot(png, view, ImageResolution=[1200, 500])
