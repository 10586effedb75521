/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Frame colours, with the palettes and name hashes of FlameGraph's flamegraph.pl. */
#ifndef LP_PALETTE_H
#define LP_PALETTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

enum palette_hash {
	HASH_NAME_RANDOM,	/* default: a random colour seeded by the name (the same everywhere) */
	HASH_NAME_VECTOR,	/* --hash: early characters weigh most */
	HASH_RANDOM,		/* --random: a random colour per frame (seeded, so reproducible) */
};

/* Is name one of hot mem io wakeup java js perl red green blue aqua yellow purple orange chain? */
bool palette__valid(const char *name);

/* Colour of a frame as 0xRRGGBB. */
uint32_t palette__color(const char *palette, enum palette_hash hash, const char *name, size_t len);

/* Differential colour: white at 0, red for growth, blue for shrinkage (flamegraph.pl's scale). */
uint32_t palette__diff_color(int64_t delta, uint64_t maxdelta, bool negate);

/* Blend of a warm on-CPU colour into blue by the off-CPU share (0..1). */
uint32_t palette__blend(uint32_t warm, double off_share);

/* Background gradient of a --bgcolors name or "#rrggbb"; false if unknown. */
bool palette__background(const char *bgcolors, char top[8], char bottom[8]);

/* The default background of a palette (flamegraph.pl's choice). */
const char *palette__default_background(const char *palette);



#include "base/stackmap.h"

/*
 * flamegraph.pl's --cp palette map ("name->rgb(r,g,b)" lines): colours kept
 * between runs. Loading a missing file gives an empty map. On a malformed line
 * NULL with errno EINVAL and *bad_line set.
 */
struct stackmap *palette_map__load(const char *path, struct lp_error *err);
bool palette_map__get(struct stackmap *m, const char *name, size_t len, uint32_t *rgb);
int palette_map__put(struct stackmap *m, const char *name, size_t len, uint32_t rgb);
int palette_map__save(struct stackmap *m, const char *path);

struct flametree;
/* Puts the colour of every name of t that m lacks, as flamegraph.pl --cp remembers them. -ENOMEM. */
int palette_map__remember(struct stackmap *m, const struct flametree *t, const char *palette,
			  enum palette_hash hash);
#endif
