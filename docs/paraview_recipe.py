# The README's ParaView recipe for bodies, shared by the picture scripts (paraview_piles.py,
# paraview_drum.py): the snapshot at the last time step, bodies as spheres of their true radius
# (Glyph type Sphere, scale array radius, scale factor 2: ParaView's sphere source has radius 0.5;
# glyph mode "All Points": the default draws at most 5,000), coloured by speed, on white.
from paraview.simple import (ColorBy, ExtractBlock, GetActiveViewOrCreate, GetAnimationScene,
                             GetColorTransferFunction, GetScalarBar, Glyph, Show, XDMFReader)


def open_last_snapshot(xmf):
    """The bodies and the walls of xmf's last time step, as two ExtractBlock sources (walls None when
    there are none). The XDMF holds one grid per kind of object ("bodies", "plane walls", "cylinder
    walls", "mesh walls", "contacts", ...): glyphing the reader whole would draw the walls' corners
    as spheres too. ParaView 5.11 labels the blocks "bodies[k]", "plane walls[k]", ...; the
    selectors are the nodes' names."""
    reader = XDMFReader(FileNames=[xmf])
    scene = GetAnimationScene()
    scene.UpdateAnimationUsingDataTimeSteps()
    scene.AnimationTime = reader.TimestepValues[-1] if reader.TimestepValues else 0.0
    reader.UpdatePipeline(scene.AnimationTime)
    tree = reader.GetDataInformation().DataInformation.GetHierarchy()
    blocks = {}
    for node in tree.GetChildNodes(0):
        label = tree.GetAttributeOrDefault(node, "label", "")
        kind = "bodies" if label.startswith("bodies") else "walls" if "walls" in label else "other"
        blocks.setdefault(kind, []).append("/Root/" + tree.GetNodeName(node))
    bodies = ExtractBlock(Input=reader, Selectors=blocks["bodies"])
    walls = ExtractBlock(Input=reader, Selectors=blocks["walls"]) if "walls" in blocks else None
    return bodies, walls


def show_bodies(source, size, max_speed):
    """A render view of size [w, h] showing source's points as spheres coloured by speed (0 to
    max_speed m/s, with a scale bar); returns the view."""
    glyph = Glyph(Input=source, GlyphType="Sphere")
    glyph.OrientationArray = ["POINTS", "No orientation array"]
    glyph.ScaleArray = ["POINTS", "radius"]
    glyph.ScaleFactor = 2.0
    glyph.GlyphMode = "All Points"
    glyph.GlyphType.ThetaResolution = 16
    glyph.GlyphType.PhiResolution = 16
    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = size
    view.UseColorPaletteForBackground = 0
    view.Background = [1.0, 1.0, 1.0]
    view.OrientationAxesVisibility = 0
    display = Show(glyph, view)
    ColorBy(display, ("POINTS", "velocity", "Magnitude"))
    display.SetScalarBarVisibility(view, True)
    lut = GetColorTransferFunction("velocity")
    lut.RescaleTransferFunction(0.0, max_speed)
    bar = GetScalarBar(lut, view)
    bar.Title, bar.ComponentTitle = "speed (m/s)", ""
    bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]
    return view
