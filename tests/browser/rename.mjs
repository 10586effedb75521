// SPDX-License-Identifier: GPL-2.0-or-later
// Renaming frame labels (share/rename.js) in a flame graph and in the
// timeline's flame graph and flame chart: rules edited in a panel, applied to
// the first match of each label, kept in the address, bad rules refused.
//
//   node rename.mjs flame FILE      lp-svg of "a;b;c 30 / a;b;d 20 / a;x;c 10 / e;c 40"
//   node rename.mjs timeline FILE   lp-svg --timeline of tests/data/timeline/small.lp
import { open, frames, shot, check, scenario } from './lib.mjs';

const [mode, file] = process.argv.slice(2);

async function rename(page, rules) {
	await page.click('#rename');
	await page.fill('#rename-rules', rules);
	await page.click('#rename-apply');
}

await scenario(async () => {
	if (mode === 'flame') {
		const { browser, page, errors } = await open(file);
		await rename(page, 'b => bee\n^(c|d)$ => leaf_$1');
		const texts = (await frames(page)).map((f) => f.text).filter((t) => t);
		for (const t of ['bee', 'leaf_c', 'leaf_d', 'a', 'x', 'e'])
			check(texts.includes(t), `frame ${t} shown: ${texts}`);
		check(!texts.includes('b') && !texts.includes('c'), 'the old labels are gone: ' + texts);
		check(await page.$eval('#rename', (e) => e.textContent) === 'Rename (2)', 'the button counts the rules');
		// the tooltip says what a frame was
		const bee = (await frames(page)).find((f) => f.text === 'bee');
		await page.hover(`#frames > g[data-i="${bee.i}"] rect`);
		const details = await page.$eval('#details', (e) => e.textContent);
		check(details.includes('bee (') && details.includes('renamed from b'), 'tooltip: ' + details);
		// search sees the labels as shown
		page.answer = '^leaf_';
		await page.click('#search');
		const matched = await page.$eval('#matched', (e) => e.textContent);
		check(matched === 'Matched: 100.00%', 'search on renamed labels: ' + matched);
		await shot(page, 'rename-flame');
		// kept in the address: a new page at that URL shows the same labels
		check(page.url().includes('rn='), 'rules in the URL: ' + page.url());
		const again = await browser.newPage();
		await again.goto(page.url());
		await again.waitForFunction(() => window.lpFlame && window.lpFlame.ready());
		const texts2 = (await frames(again)).map((f) => f.text);
		check(texts2.includes('bee') && texts2.includes('leaf_d'), 'rules restored from the URL: ' + texts2);
		// a bad rule is refused with its line, and the rules in force stay
		await rename(page, 'ok => fine\n([ => oops');
		const err = await page.$eval('#rename-error', (e) => e.textContent);
		check(/^line 2: /.test(err), 'the bad line is named: ' + err);
		await page.click('#rename-close');
		check((await frames(page)).some((f) => f.text === 'bee'), 'the old rules stay');
		// clear: back to the names in the file
		await page.click('#rename');
		await page.click('#rename-clear');
		const texts3 = (await frames(page)).map((f) => f.text);
		check(texts3.includes('b') && !texts3.includes('bee') && !page.url().includes('rn='), 'cleared');
		check(errors.length === 0, 'no errors: ' + errors);
		await browser.close();
	} else {
		const { browser, page, errors } = await open(file, '?row=1', () => window.lpTimeline && window.lpTimeline.ready());
		await rename(page, '^futex_(.*) => lock $1');
		const names = await page.$$eval('#flame text', (ts) => ts.map((t) => t.textContent));
		check(names.includes('lock wait') && !names.includes('futex_wait'), 'the flame graph shows renamed frames: ' + names);
		// the flame chart draws on a canvas: its hover says the name as shown
		const runs = await page.evaluate(() => window.lpTimeline.chartRuns());
		const fw = runs.find((c) => c.name === 'futex_wait');
		const x = await page.evaluate((t) => window.lpTimeline.x(t), (fw.start + fw.end) / 2);
		const y = await page.evaluate(() => window.lpTimeline.chartY()) + fw.depth * 16 + 8;
		await page.mouse.move(x, y);
		const tip = await page.$eval('#tip', (g) => g.textContent);
		check(tip.startsWith('lock wait'), 'flame chart tooltip: ' + tip);
		check(page.url().includes('rn='), 'rules in the URL');
		await shot(page, 'rename-timeline');
		check(errors.length === 0, 'no errors: ' + errors);
		await browser.close();
	}
});
