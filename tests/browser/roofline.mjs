// lp-svg --roofline in Chromium: the widest ISA's roofs shown, points placed
// by their numbers, another ISA on a click, search, and the details of a point.
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
	check(errors.length === 0, 'no errors: ' + errors);
	await browser.close();
});
