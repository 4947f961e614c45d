#!/bin/sh
# An example objective for hees: the ellipsoid
#
#	f(x) = sum over i of 10^(6 (i-1)/(d-1)) x_i^2	(f(x) = x_1^2 when d = 1)
#
# as an external program. It reads points from standard input, one per line
# (the d coordinates separated by spaces), and prints one value per line, so
# it serves both ways hees runs a program: kept running by "hees run -cmd"
# (one line in, one line out, many times) and once per candidate by a job
# that pipes it a single point. Each line gets its own awk, which exits and
# so flushes its answer at once: an awk reading the whole stream may hold
# both its input and its output in buffers (mawk does), and the caller would
# wait for ever. The values have 17 significant digits, enough to read back
# to the same float64.
while IFS= read -r line; do
	printf '%s\n' "$line" | awk '{
		s = 0
		for (i = 1; i <= NF; i++) {
			w = NF > 1 ? 10 ^ (6 * (i - 1) / (NF - 1)) : 1
			s += w * $i * $i
		}
		printf "%.17g\n", s
	}'
done
