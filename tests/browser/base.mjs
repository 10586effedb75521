// SPDX-License-Identifier: GPL-2.0-or-later
// A flame graph taller than the window opens scrolled to its base: the root frame is on the
// first screen; one that fits, or an inverted one, opens at its top.
import { open, shot, check, scenario } from './lib.mjs';

const [file, want] = process.argv.slice(2);
await scenario(async () => {
	const { browser, page, errors } = await open(file);
	const s = await page.evaluate(() => {
		const root = document.querySelector('#frames > g[data-i="0"] rect').getBoundingClientRect();
		return { y: window.scrollY, top: root.top, bottom: root.bottom, h: window.innerHeight,
			doc: document.documentElement.scrollHeight };
	});
	if (want === 'base') {
		check(s.doc > s.h, 'the graph is taller than the window: ' + s.doc + ' > ' + s.h);
		check(s.y > 0, 'scrolled down: ' + s.y);
		check(s.top >= 0 && s.bottom <= s.h, 'the root frame is on the first screen: ' + s.top + '..' + s.bottom);
	} else {
		check(s.y === 0, 'not scrolled: ' + s.y);
	}
	await shot(page, 'base-' + want);
	check(errors.length === 0, 'no errors: ' + errors);
	await browser.close();
});
