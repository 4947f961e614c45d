package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/boundedfile"
	"github.com/hees-dev/hees/internal/checkpoint"
	"github.com/hees-dev/hees/internal/points"
	"github.com/hees-dev/hees/internal/runlog"
	"github.com/hees-dev/hees/internal/runner"
	"github.com/hees-dev/hees/space"
)

// The search space of hees run -space (package space): the strategy
// searches one coordinate per parameter in the box (and with the steps of
// its discrete coordinates) the space gives; the program, a test problem,
// the log, -x0, -inject and the summary see the parameters' values.

// checkSpaceFlags reports the flags that do not go with -space, and a bad
// -format.
func (rf *runFlags) checkSpaceFlags(set map[string]bool) error {
	switch {
	case rf.format != "text" && rf.format != runner.FormatJSON:
		return usagef("-format %q: want text or json", rf.format)
	case set["format"] && rf.command == "":
		return usagef("-format is the program's protocol: give it with -cmd")
	case rf.spaceFile == "":
		return nil
	case set["lower"] || set["upper"] || set["stds"] || set["box"]:
		return usagef("-space gives the range of every parameter: leave out -lower, -upper, -stds and -box")
	}
	return nil
}

// loadSpace reads the space of -space (nil without it) and checks it
// against -d when -d was given.
func (rf *runFlags) loadSpace(set map[string]bool) (*space.Space, error) {
	if rf.spaceFile == "" {
		return nil, nil
	}
	sp, err := space.ReadFile(rf.spaceFile)
	if err != nil {
		return nil, usagef("-space %v", err)
	}
	if set["d"] && rf.dim != sp.Len() {
		return nil, usagef("-d %d: the space %s has %d parameters (%s); leave -d out or make them agree",
			rf.dim, rf.spaceFile, sp.Len(), strings.Join(sp.Names(), ", "))
	}
	return sp, nil
}

// spaceConfig returns cfg, the strategy's Config of the flags, for the
// space sp: its box, the steps of its discrete coordinates when the
// strategy takes them (es.Info.Margin), -x0 read as the parameters'
// values, and without -sigma0 (sigma0Given false) the box's default
// step size.
func spaceConfig(cfg es.Config, algo string, sp *space.Space, x0 *lazyPoint, sigma0Given bool) (es.Config, error) {
	info, err := es.Lookup(algo)
	if err != nil {
		return cfg, err
	}
	lower, upper, steps := sp.Domain(info.Margin)
	cfg.Bounds = &es.Bounds{Lower: lower, Upper: upper}
	cfg.Steps = steps
	if !sigma0Given {
		cfg.Sigma0 = 0 // 0.3 times the box's widths (es.Config.Bounds)
	}
	cfg.X0 = nil
	if x0.set {
		if cfg.X0, err = parseSpacePoint(sp, x0.raw); err != nil {
			return cfg, usagef("-x0: %v", err)
		}
	}
	return cfg, nil
}

// spaceWarmStart is warmStart for a run in the space sp, whose
// configuration spaceConfig made: when -inject FILE is an evaluation log
// of a run in sp, X0 is its best point unless -x0 is given, and Sigma0,
// unless -sigma0 is given, the spread of its 2d best points around it:
// the root mean square of their distances to it per coordinate, each in
// units of the coordinate's default scale (its width over the geometric
// mean of the widths, es.Config.Bounds).
func spaceWarmStart(cfg es.Config, path string, sp *space.Space, x0Given, sigma0Given bool) es.Config {
	if path == "" || cfg.Bounds == nil {
		return cfg
	}
	d := sp.Len()
	rows, err := runlog.BestRowsSpace(path, sp, max(2*d, 2))
	if err != nil || len(rows) == 0 {
		return cfg // readSpaceInject reports it
	}
	best, spread := logStart(rows, cfg.Bounds.DefaultStds(d))
	if !x0Given {
		cfg.X0 = best
	}
	if !sigma0Given && spread > 0 {
		cfg.Sigma0 = spread
	}
	return cfg
}

// parseSpacePoint reads a point of the space's values: the values
// separated by commas or blanks, a JSON object of names, or @FILE holding
// either.
func parseSpacePoint(sp *space.Space, text string) ([]float64, error) {
	if path, ok := strings.CutPrefix(text, "@"); ok {
		data, err := boundedfile.Read(path, points.MaxFileBytes)
		if err != nil {
			return nil, err
		}
		text = strings.TrimSpace(string(data))
	}
	if strings.HasPrefix(strings.TrimSpace(text), "{") {
		return sp.ParseJSON([]byte(text))
	}
	return sp.ParseText(strings.ReplaceAll(text, "\n", " "))
}

// readSpaceInject reads the known points of -inject FILE as values of the
// space sp, one point per line (the values, or a JSON object of names;
// blank lines and lines starting with '#' are skipped), or as the best
// points of an evaluation log of a run in the same space, as many as a
// generation of s (a warm start), and checks them as readInject does.
func readSpaceInject(path string, sp *space.Space, s es.Strategy, maxEvals int) ([][]float64, error) {
	if path == "" {
		return nil, nil
	}
	rows, err := runlog.BestRowsSpace(path, sp, s.PopulationSize())
	if !errors.Is(err, runlog.ErrNotLog) {
		var list [][]float64
		for _, r := range rows {
			list = append(list, r.X)
		}
		return checkInject(path, list, err, s, maxEvals)
	}
	data, err := boundedfile.Read(path, points.MaxListBytes)
	if err != nil {
		return checkInject(path, nil, err, s, maxEvals)
	}
	var list [][]float64
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var y []float64
		if strings.HasPrefix(line, "{") {
			y, err = sp.ParseJSON([]byte(line))
		} else {
			y, err = sp.ParseText(line)
		}
		if err != nil {
			return nil, fmt.Errorf("-inject %s line %d: %v", path, n+1, err)
		}
		list = append(list, y)
	}
	return checkInject(path, list, nil, s, maxEvals)
}

// checkSpaceState reports a run's space (in its settings rs, as a
// checkpoint keeps it) that disagrees with its strategy s: another
// dimension, or another box or other steps than the space gives the
// strategy.
func checkSpaceState(rs *checkpoint.Settings, s es.Strategy) error {
	if rs.Format != "" && rs.Format != runner.FormatJSON {
		return fmt.Errorf("bad checkpoint: format %q", rs.Format)
	}
	if _, err := rs.SpaceOf(s); err != nil {
		return fmt.Errorf("bad checkpoint: %w", err)
	}
	return nil
}

// bestParams returns the best point x (an es point) as the user's values
// of the space of rs and as a JSON object of names; nil, nil without a
// space or a point.
func bestParams(rs *checkpoint.Settings, x []float64) ([]space.Value, []byte) {
	sp, err := runner.Space(rs)
	if err != nil || sp == nil || x == nil {
		return nil, nil
	}
	return sp.Values(x), sp.AppendJSON(nil, x)
}

// formatBestValues writes the best point's values as name=value words.
func formatBestValues(rs *checkpoint.Settings, x []float64) string {
	sp, _ := runner.Space(rs)
	if sp == nil || x == nil {
		return formatBest(x)
	}
	var b strings.Builder
	for i, v := range sp.Values(x) {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%s", sp.Names()[i], v.Text())
	}
	return b.String()
}
