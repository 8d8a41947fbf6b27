# Ellipsoid bodies in ParaView as a pvbatch script: the last snapshot of a run, each body drawn as the
# ellipsoid of its pose, with the plane walls. Run (as the README's other recipes):
#   xvfb-run -a -s "-screen 0 1600x1200x24" pvbatch docs/paraview_ellipsoids.py OUT/snapshots.xmf picture.png
# A snapshot holds each body's quaternion (w, x, y, z) and, for an ellipsoid (/bodies/shape 3), its
# semi-axes in /bodies/half_extents. A Programmable Filter turns them into the symmetric tensor
# T = R diag(a, b, c) R^T (R the body's rotation), whose eigenvectors are the body axes and whose
# eigenvalues the semi-axes; a Tensor Glyph of a sphere with Extract Eigenvalues on, scale factor 2
# (ParaView's sphere has radius 0.5), draws the ellipsoid. A sphere body gets r times the identity,
# drawn as itself. By hand in the GUI: Extract Block (bodies), Merge Blocks, Programmable Filter with
# SCRIPT below, then Filters > Alphabetical > Tensor Glyph: Tensors shape_tensor, Glyph Type Sphere,
# Scale Factor 2, Extract Eigenvalues on.
import sys

from paraview.simple import (GetActiveViewOrCreate, MergeBlocks, ProgrammableFilter, Render, SaveScreenshot, Show,
                             TensorGlyph)

sys.path.insert(0, __file__.rsplit("/", 1)[0] if "/" in __file__ else ".")
from paraview_recipe import open_last_snapshot  # noqa: E402

SCRIPT = """
import numpy as np
from vtk.numpy_interface import dataset_adapter as dsa
inp = dsa.WrapDataObject(self.GetInputDataObject(0, 0))
out = dsa.WrapDataObject(self.GetOutputDataObject(0))
q = np.asarray(inp.PointData['quaternion']).reshape(-1, 4)
h = np.asarray(inp.PointData['half_extents']).reshape(-1, 3)
w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
R = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
              2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
              2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=1).reshape(-1, 3, 3)
out.PointData.append(np.einsum('nik,nk,njk->nij', R, h, R).reshape(-1, 9), 'shape_tensor')
"""


def main(xmf, png):
    bodies, walls = open_last_snapshot(xmf)
    tensors = ProgrammableFilter(Input=MergeBlocks(Input=bodies))
    tensors.Script = SCRIPT
    glyph = TensorGlyph(Input=tensors, GlyphType="Sphere")
    glyph.Tensors = ["POINTS", "shape_tensor"]
    glyph.ScaleFactor = 2.0
    glyph.ExtractEigenvalues = 1
    glyph.GlyphType.ThetaResolution = 32
    glyph.GlyphType.PhiResolution = 32
    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = [800, 600]
    view.UseColorPaletteForBackground = 0
    view.Background = [1.0, 1.0, 1.0]
    Show(glyph, view)
    if walls:
        Show(walls, view)
    view.ResetCamera()
    Render(view)
    SaveScreenshot(png, view)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
