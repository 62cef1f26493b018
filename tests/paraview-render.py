"""Run by ParaView's pvbatch (tests/check-paraview.sh): opens an XDMF file that
cradle-plot --xdmf wrote, checks what ParaView's own reader finds in it (points
per step, the time steps, the radius array), draws each body as a sphere of its
radius (Glyph scaled by /model/radius) at the last step, and saves two PNGs of
one camera: the bodies shown, and the same view with them hidden (the
background alone). Prints one line "points P steps S radius R0..R1" for the
shell to check; the PNGs are compared there.

usage: pvbatch paraview-render.py FILE.xmf SHOWN.png HIDDEN.png
"""
import sys

from paraview import simple as pv

xmf, shown_png, hidden_png = sys.argv[1:4]
# ParaView 5.11 offers three readers for .xmf; the Xdmf3 ones read no points
# from our polyvertex grids (Xdmf3ReaderS/T: 0 points; docs/viewers.md), the
# "XDMF Reader" reads them all
reader = pv.XDMFReader(FileNames=[xmf])
steps = list(reader.TimestepValues) if reader.TimestepValues else [0.0]
last = steps[-1]
reader.UpdatePipeline(last)
info = reader.GetDataInformation()
rng = reader.PointData["radius"].GetRange()
print("points %d steps %d radius %.9g..%.9g" % (info.GetNumberOfPoints(), len(steps), rng[0], rng[1]))

glyph = pv.Glyph(Input=reader, GlyphType="Sphere")
glyph.ScaleArray = ["POINTS", "radius"]
glyph.ScaleFactor = 2.0  # the sphere source has radius 0.5: diameter = 2 x radius
glyph.GlyphMode = "All Points"
view = pv.GetActiveViewOrCreate("RenderView")
view.ViewTime = last
view.OrientationAxesVisibility = 0
view.Background = [1.0, 1.0, 1.0]
try:  # 5.10+: the background is the palette's unless told otherwise
    view.UseColorPaletteForBackground = 0
except AttributeError:
    pass
shown = pv.Show(glyph, view)
shown.DiffuseColor = [0.1, 0.2, 0.8]
shown.AmbientColor = [0.1, 0.2, 0.8]
pv.ResetCamera(view)
pv.SaveScreenshot(shown_png, view, ImageResolution=[480, 240])
pv.Hide(glyph, view)
pv.SaveScreenshot(hidden_png, view, ImageResolution=[480, 240])
