package profiles

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"html"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Flame graph geometry, in SVG pixels.
const (
	flameWidth    = 1200.0
	flameMargin   = 10.0
	flameTop      = 56.0 // title and subtitle
	frameHeight   = 17.0
	charWidth     = 6.6 // of the 11px monospace font
	minFrameWidth = 0.3 // narrower frames are not drawn
)

// flameNode is a frame in the merged call tree, root first.
type flameNode struct {
	name     string
	count    int64
	children []*flameNode // sorted by name, as flamegraph.pl does
}

func (n *flameNode) child(name string) *flameNode {
	i, found := slices.BinarySearchFunc(n.children, name, func(c *flameNode, s string) int { return strings.Compare(c.name, s) })
	if !found {
		n.children = slices.Insert(n.children, i, &flameNode{name: name})
	}
	return n.children[i]
}

func (n *flameNode) depth() int {
	d := 0
	for _, c := range n.children {
		d = max(d, c.depth())
	}
	return d + 1
}

// WriteSVG renders a self-contained SVG flame graph (root at the bottom,
// callees above, widths proportional to samples). Hovering a frame shows
// its full name and count through <title>; no script is needed.
func (p *Profile) WriteSVG(w io.Writer) error {
	info := p.Info()
	root := &flameNode{name: "all"}
	for _, l := range p.Folded() {
		root.count += l.Count
		n := root
		for _, f := range l.Frames {
			n = n.child(f)
			n.count += l.Count
		}
	}
	depth := root.depth()
	height := flameTop + float64(depth)*frameHeight + flameMargin
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="11">
<rect x="0" y="0" width="100%%" height="100%%" fill="#f8f8f4"/>
<text x="%.0f" y="22" font-size="16" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" text-anchor="middle">%s</text>
<text x="%.0f" y="42" font-size="12" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" text-anchor="middle" fill="#555">%s</text>
`, flameWidth, height, flameWidth, height,
		flameWidth/2, esc("JVM flame graph: "+describe(info)),
		flameWidth/2, esc(fmt.Sprintf("%d thread samples in %d dumps every %d ms (%s threads, wall-clock); profile %s, %s",
			root.count, info.Dumps, info.IntervalMS, info.Threads, info.ID, info.Status)))
	if root.count == 0 {
		fmt.Fprintf(bw, `<text x="%.0f" y="%.0f" text-anchor="middle">no samples</text>`+"\n", flameWidth/2, flameTop+frameHeight)
	} else {
		scale := (flameWidth - 2*flameMargin) / float64(root.count)
		drawFrame(bw, root, root.count, flameMargin, 0, depth, scale)
	}
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

// drawFrame draws n at x, level (0 = root, at the bottom), then its children.
func drawFrame(w *bufio.Writer, n *flameNode, total int64, x float64, level, depth int, scale float64) {
	width := float64(n.count) * scale
	if width < minFrameWidth {
		return
	}
	y := flameTop + float64(depth-1-level)*frameHeight
	pct := 100 * float64(n.count) / float64(total)
	fmt.Fprintf(w, `<g><title>%s (%d samples, %.2f%%)</title><rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" rx="2" fill="%s" stroke="#f8f8f4" stroke-width="0.5"/>`,
		esc(n.name), n.count, pct, x, y, width, frameHeight-1, frameColor(n.name, level))
	if label := fitLabel(n.name, width); label != "" {
		fmt.Fprintf(w, `<text x="%.2f" y="%.1f">%s</text>`, x+3, y+frameHeight-5, esc(label))
	}
	w.WriteString("</g>\n")
	for _, c := range n.children {
		drawFrame(w, c, total, x, level+1, depth, scale)
		x += float64(c.count) * scale
	}
}

// fitLabel shortens a name to the frame's width: the full name, else
// "Class.method" without the package, else that cut with "..".
func fitLabel(name string, width float64) string {
	fit := int(math.Floor((width - 6) / charWidth))
	if fit < 3 {
		return ""
	}
	if utf8.RuneCountInString(name) <= fit {
		return name
	}
	short := []rune(shortName(name))
	if len(short) <= fit {
		return string(short)
	}
	if fit <= 3 {
		return ""
	}
	return string(short[:fit-2]) + ".."
}

// shortName drops the package: "org.a.B$C.run" → "B$C.run".
func shortName(name string) string {
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 {
		return name
	}
	if cls := strings.LastIndexByte(name[:dot], '.'); cls >= 0 {
		return name[cls+1:]
	}
	return name
}

// frameColor picks a hue by origin: JDK frames orange, Spark blue, Flink
// purple, everything else red to yellow (the classic palette), varied per
// name so neighbours differ.
func frameColor(name string, level int) string {
	if level == 0 {
		return "rgb(190,190,190)"
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	v := float64(h.Sum32()%1000) / 1000
	switch {
	case strings.HasPrefix(name, "org.apache.spark."):
		return rgb(80+40*v, 140+50*v, 220)
	case strings.HasPrefix(name, "org.apache.flink."):
		return rgb(160+40*v, 120+40*v, 220)
	case strings.HasPrefix(name, "java.") || strings.HasPrefix(name, "javax.") ||
		strings.HasPrefix(name, "jdk.") || strings.HasPrefix(name, "sun."):
		return rgb(230, 150+50*v, 60+30*v)
	}
	return rgb(215+40*v, 80+110*v, 50+20*v)
}

func rgb(r, g, b float64) string {
	return fmt.Sprintf("rgb(%.0f,%.0f,%.0f)", r, g, b)
}

func esc(s string) string { return html.EscapeString(s) }
