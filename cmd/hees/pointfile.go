package main

import "github.com/hees-dev/hees/internal/points"

// readPointFile reads one point from the file at path (-x0 @FILE), as
// points.ReadFile does.
func readPointFile(path string) ([]float64, error) { return points.ReadFile(path) }
