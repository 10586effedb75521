// SPDX-License-Identifier: GPL-2.0-or-later
// The first screens of a report of a real program (tests/first-screen.bats):
// the top functions begin with work, the flame graph shows
// explained waits as one frame each; the timeline opens on the whole run,
// its rows by CPU time and folded to fit.
//
//   node firstscreen.mjs REPORT/index.html make|node|python3
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { open, shot, check, scenario } from './lib.mjs';

const [file, what] = process.argv.slice(2);

async function frameOf(page, src, ready) {
	for (let i = 0; i < 100; i++) {
		const f = page.frames().find((x) => x.url().endsWith(src));
		if (f) {
			try { if (await f.evaluate(ready)) return f; } catch (e) { /* still loading */ }
		}
		await page.waitForTimeout(100);
	}
	throw new Error('no drawn ' + src);
}

await scenario(async () => {
	const { browser, page, errors } = await open(file, '', () => document.readyState === 'complete');
	const top = await page.$$eval('table.top', (ts) => Array.from(ts[0].querySelectorAll('tr')).slice(1).map((tr) =>
		Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)));
	const secs = (t) => /ms$/.test(t) ? parseFloat(t) / 1e3 : /us$/.test(t) ? parseFloat(t) / 1e6 : parseFloat(t);
	// the page's first row is top.tsv's, whose work the bats test weighed against its time blocked
	// (off the CPU beyond preemption, which a busy machine adds as it likes)
	const first = readFileSync(join(dirname(file), 'top.tsv'), 'utf8').split('\n')[1].split('\t');
	check(top.length && top[0][0] === first[0] && secs(top[0][1]) > 0, `the first function is top.tsv's, on the CPU: ${JSON.stringify(top[0])}, ${first}`);
	await shot(page, `first-${what}-report`);
	const tl = await frameOf(page, 'timeline.svg', () => window.lpTimeline && window.lpTimeline.ready());
	const view = await tl.evaluate(() => window.lpTimeline.view());
	const shown = await tl.evaluate(() => window.lpTimeline.shownRows());
	check(view[0] === 0, 'the timeline opens on the whole run: ' + view);
	// siblings by CPU time: among the root's children shown, the heaviest first
	const kids = shown.filter((r) => r.depth === 1 && r.process);
	for (let i = 1; i < kids.length; i++)
		check(kids[i - 1].cpu >= kids[i].cpu, `children by CPU time: ${JSON.stringify(kids.slice(0, i + 1))}`);
	if (what === 'make') check(shown.length < 120, `folded to fit: ${shown.length} rows shown`);
	const fg = await frameOf(page, 'flamegraph.svg', () => window.lpFlame && window.lpFlame.ready());
	const names = await fg.evaluate(() => Array.from(document.querySelectorAll('#frames > g')).map((g) => window.lpFlame.name(+g.getAttribute('data-i'))));
	if (what === 'make') {
		check(names.includes('[waiting for cc1]'), 'the driver waits for cc1: one frame');
		check(!names.includes('wait4'), 'wait4 is not drawn by its stack');
	}
	if (what === 'node') check(names.includes('[waiting for node]'), 'the workers wait for the main thread: one frame');
	await page.$eval('object#timeline', (o) => o.scrollIntoView());
	await shot(page, `first-${what}-timeline`);
	check(errors.length === 0, 'no errors: ' + errors);
	await browser.close();
});
