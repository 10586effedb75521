// SPDX-License-Identifier: GPL-2.0-or-later
// lp-svg --roofline in Chromium: the widest ISA's roofs shown, points placed
// by their numbers, another ISA on a click, search, the details of a point, and
// zoom by a dragged box (kept in the URL, undone by Reset zoom).
import { open, shot, check, scenario } from './lib.mjs';

const file = process.argv[2];

await scenario(async () => {
	const { browser, page, errors } = await open(file, '', () => window.lpRoofline && window.lpRoofline.ready);
	const shown = await page.$$eval('g.isa', (gs) => gs.filter((g) => g.getAttribute('display') !== 'none')
		.map((g) => g.getAttribute('data-isa')));
	const isas = await page.$$eval('.isa-button', (bs) => bs.map((b) => b.getAttribute('data-isa')));
	check(shown.length === 1 && shown[0] === isas[isas.length - 1], 'the widest ISA shown alone: ' + shown + ' of ' + isas);
	// each memory roof rises to the right, the compute roofs are flat, in the drawn ISA
	const roofs = await page.$$eval('g.isa[display="inline"] line.roof', (ls) => ls.map((l) => ({
		cls: l.getAttribute('class'), x1: +l.getAttribute('x1'), y1: +l.getAttribute('y1'),
		x2: +l.getAttribute('x2'), y2: +l.getAttribute('y2'), title: l.querySelector('title').textContent })));
	const mem = roofs.filter((r) => r.cls.includes('memory')), comp = roofs.filter((r) => r.cls.includes('compute'));
	check(mem.length === 4 && mem.every((r) => r.x2 > r.x1 && r.y2 < r.y1), 'four rising memory roofs: ' + JSON.stringify(mem));
	check(comp.length >= 2 && comp.every((r) => r.y1 === r.y2), 'flat compute roofs: ' + JSON.stringify(comp));
	// L1 above L2 above L3 above DRAM at the same intensity: their slopes start at the left edge in that order
	const at = (name) => mem.find((r) => r.title.startsWith(name + ':'));
	const slopeY = (r, x) => r.y1 + (r.y2 - r.y1) * (x - r.x1) / (r.x2 - r.x1);
	const x = Math.max(...mem.map((r) => r.x1)) + 1;
	check(slopeY(at('L1'), x) < slopeY(at('L2'), x) && slopeY(at('L2'), x) < slopeY(at('DRAM'), x),
		'L1 above L2 above DRAM: ' + JSON.stringify(mem));
	// the points: matmul (20 FLOP/byte) right of dot (0.25), stream (1/24) leftmost; idle is not drawn
	const pts = await page.$$eval('g.point', (gs) => gs.map((g) => ({
		name: g.querySelector('text').textContent, cx: +g.querySelector('circle').getAttribute('cx'),
		cy: +g.querySelector('circle').getAttribute('cy'), r: +g.querySelector('circle').getAttribute('r') })));
	const p = Object.fromEntries(pts.map((q) => [q.name, q]));
	check(pts.length === 3 && p.stream.cx < p.dot.cx && p.dot.cx < p.matmul.cx, 'points by intensity: ' + JSON.stringify(pts));
	check(p.matmul.cy < p.dot.cy && p.matmul.r > p.dot.r, 'matmul faster and longer than dot: ' + JSON.stringify(pts));
	check((await page.textContent('#details')).includes('Not drawn: 1 region'), 'the region without FLOPs is said');
	await shot(page, 'roofline');
	// hover: the roofs above the point
	await page.hover('g.point:has(text:text-is("dot")) circle');
	const d1 = await page.textContent('#details'), d2 = await page.textContent('#details2');
	check(d1.startsWith('dot: ') && /Below the \w+ roof .*: at \d+% of it/.test(d2) && d2.includes('bytes=width-8'),
		'details of dot: ' + d1 + ' / ' + d2);
	// another ISA
	await page.click(`.isa-button[data-isa="${isas[0]}"]`);
	const now = await page.$$eval('g.isa', (gs) => gs.filter((g) => g.getAttribute('display') !== 'none')
		.map((g) => g.getAttribute('data-isa')));
	check(now.length === 1 && now[0] === isas[0] && page.url().includes('isa=' + isas[0]), 'ISA switched: ' + now);
	// search
	page.answer = 'mat';
	await page.click('#search');
	const matched = await page.$$eval('g.point.match text', (ts) => ts.map((t) => t.textContent));
	check(matched.length === 1 && matched[0] === 'matmul' && page.url().includes('s=mat'), 'search: ' + matched);
	await shot(page, 'roofline-search');
	// zoom: a box dragged around dot brings it to the middle, larger; the others leave; ticks follow
	const circle = (name) => page.$eval(`g.point:has(text:text-is("${name}")) circle`, (c) =>
		({ cx: +c.getAttribute('cx'), cy: +c.getAttribute('cy'), shown: c.parentNode.getAttribute('display') !== 'none' }));
	const ticksNow = () => page.$$eval('#axes text.tick', (ts) => ts.map((t) => t.textContent).join('|'));
	const before = await circle('dot'), ticksBefore = await ticksNow();
	const box = await page.$eval(`g.point:has(text:text-is("dot")) circle`, (c) => {
		const r = c.getBoundingClientRect();
		return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
	});
	await page.mouse.move(box.x - 30, box.y - 20);
	await page.mouse.down();
	await page.mouse.move(box.x + 10, box.y + 5, { steps: 4 });
	await page.mouse.move(box.x + 30, box.y + 20, { steps: 4 });
	await page.mouse.up();
	const zoomed = await circle('dot'), plot = await page.$eval('rect.plot', (r) =>
		({ x: +r.getAttribute('x'), y: +r.getAttribute('y'), w: +r.getAttribute('width'), h: +r.getAttribute('height') }));
	check(Math.abs(zoomed.cx - (plot.x + plot.w / 2)) < plot.w * 0.1 && Math.abs(zoomed.cy - (plot.y + plot.h / 2)) < plot.h * 0.1,
		'dot in the middle of the zoomed plot: ' + JSON.stringify({ before, zoomed, plot }));
	check(!(await circle('matmul')).shown && !(await circle('stream')).shown, 'the points outside the box are not drawn');
	check(await ticksNow() !== ticksBefore, 'the axes are labelled for the zoomed range: ' + await ticksNow());
	check(/[?&]z=/.test(page.url()) && await page.$eval('#unzoom', (e) => e.getAttribute('display') !== 'none'),
		'the zoom is in the URL, Reset zoom shown: ' + page.url());
	const lines = await page.$$eval('g.isa[display="inline"] line.roof.memory', (ls) => ls.map((l) =>
		[+l.getAttribute('x1'), +l.getAttribute('y1'), +l.getAttribute('x2'), +l.getAttribute('y2')]));
	check(lines.every((l) => l[2] > l[0] && l[3] < l[1]), 'memory roofs still rise: ' + JSON.stringify(lines));
	await shot(page, 'roofline-zoom');
	await page.goto(page.url());
	await page.waitForFunction(() => window.lpRoofline && window.lpRoofline.ready);
	const again = await circle('dot');
	check(Math.abs(again.cx - zoomed.cx) < 0.5 && Math.abs(again.cy - zoomed.cy) < 0.5, 'the URL gives the same zoom back');
	await page.click('#unzoom');
	const back = await circle('dot');
	check(Math.abs(back.cx - before.cx) < 0.2 && Math.abs(back.cy - before.cy) < 0.2 && !/[?&]z=/.test(page.url()) &&
		await ticksNow() === ticksBefore, 'Reset zoom puts everything back: ' + JSON.stringify(back));
	check(errors.length === 0, 'no errors: ' + errors);
	await browser.close();
});
