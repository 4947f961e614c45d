// Package svgplot draws small line, step and scatter plots as standalone SVG
// documents with the standard library only.
//
// A Figure is a grid of Panels; each Panel has its own axes (linear or
// base-10 logarithmic), title, axis labels, legend and any number of Series.
// The package is made for the hees command line: run traces (objective value,
// step size, condition number against evaluations), the paper's Figure 2
// (log-y curves per iteration), evaluations-to-target against condition
// number (log-log, with capped runs marked by Series.Censored) and ECDF step
// plots (Step style on a [0, 1] y axis).
//
// # Axes
//
// A logarithmic axis with an automatic range is widened to whole decades and
// gets a labelled tick at each decade, written 10 with a raised exponent,
// thinned to every second, third, fifth... decade when the labels would not
// fit, and minor ticks at 2..9 times each decade when there is room. A linear
// axis gets "nice" ticks at multiples of 1, 2 or 5 times a power of ten,
// labelled with the decimals the step needs, or as m×10 with a raised
// exponent for values of a million and more or all below a thousandth. An
// automatic range is widened a little at an end the data touch, so lines and
// markers there are not hidden by the frame.
//
// # Data that cannot be drawn
//
// Points with a NaN or infinite coordinate, and points with a coordinate at
// or below zero on a logarithmic axis, are skipped: a line or step series is
// broken there and resumes at the next drawable point. Lines are clipped to
// the plot area, so a fixed range may cut them. The output never contains a
// NaN or an infinity.
//
// # Output
//
// WriteSVG writes the same bytes for the same Figure: coordinates are rounded
// to 0.01 pixel, there is no randomness and no dependence on the time or the
// platform's fonts beyond the generic "sans-serif" family. Colours come from
// the colour-blind-friendly palette of Okabe and Ito (see PaletteColor), and
// series also differ by marker shape. Text is escaped for XML. Legends are
// placed in a corner of the plot area that no data crosses, or outside it
// (to the right, or above when that would take too much width) when every
// corner is taken. Text widths are estimated, as SVG cannot measure text.
package svgplot
