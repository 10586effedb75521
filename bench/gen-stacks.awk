# SPDX-License-Identifier: GPL-2.0-or-later
# Deterministic folded stacks for benchmarks: N unique stacks (-v n=200000),
# average depth about 30. Each stack runs up one of 50 "spines" (12 to 30
# frames shared by many stacks), then branches along the base-4 digits of its
# number (9 frames), as real profiles share long prefixes and differ near the
# leaves. Counts are 1 to 100.
BEGIN {
	if (!n) n = 200000
	seed = 12345
	for (s = 0; s < 50; s++) {
		len = 12 + (s * 7919) % 19
		spine[s] = "app_" s
		for (d = 0; d < len; d++)
			spine[s] = spine[s] ";" sprintf("lib%d::Module%d::function_%d_%d", d % 7, (s + d) % 13, d, (s * 31 + d) % 97)
	}
	for (i = 0; i < n; i++) {
		line = spine[i % 50]
		k = int(i / 50)
		for (d = 0; d < 9; d++) {
			line = line ";" sprintf("leaf_level%d_choice%d", d, k % 4)
			k = int(k / 4)
		}
		seed = (seed * 1103515245 + 12345) % 2147483648
		print line, 1 + seed % 100
	}
}
