package svgplot

// Font sizes in pixels.
const (
	fontTicks       = 11
	fontLegend      = 11
	fontAxisLabel   = 12
	fontPanelTitle  = 13
	fontFigureTitle = 15
	// superscriptScale is the size of a raised exponent relative to its base.
	superscriptScale = 0.75
)

// textWidth estimates the rendered width in pixels of s in a sans-serif
// font of the given size. SVG text cannot be measured without a renderer,
// so the widths per character are those of DejaVu Sans (the usual
// "sans-serif" on Linux and wider than Helvetica or Arial), rounded up.
func textWidth(s string, size float64) float64 {
	em := 0.0
	for _, r := range s {
		em += runeWidth(r)
	}
	return em * size
}

// runeWidth is the advance width of r in ems, by character class.
func runeWidth(r rune) float64 {
	switch {
	case r == 'i' || r == 'j' || r == 'l' || r == '.' || r == ',' || r == ':' || r == ';' || r == '\'' || r == '|' || r == '!':
		return 0.29
	case r == ' ' || r == 'f' || r == 't' || r == 'r' || r == 'I' || r == '(' || r == ')' || r == '[' || r == ']' || r == '-' || r == '/':
		return 0.4
	case r == 'm' || r == 'w' || r == 'M' || r == 'W' || r == '%':
		return 0.95
	case '0' <= r && r <= '9', r == '+', r == '−', r == '×', r == '=', r == '<', r == '>', r == '_':
		return 0.64
	case 'a' <= r && r <= 'z':
		return 0.62
	case 'A' <= r && r <= 'Z':
		return 0.74
	}
	return 0.7
}

// width estimates the rendered width of the label at the given base size.
func (l label) width(size float64) float64 {
	return textWidth(l.base, size) + textWidth(l.sup, superscriptScale*size)
}
