// SPDX-License-Identifier: GPL-2.0-or-later
// The timeline (lp-svg --timeline) in Chromium: rows nested by spawn tree,
// what is drawn where, the tooltip, zoom and pan, search, a thread's flame
// graph on click, bands of several streams on one clock.
//
//   node timeline.mjs small FILE      tests/data/timeline/small.lp drawn
//   node timeline.mjs recorded FILE   tests/workloads/blocking recorded by lp-record
//   node timeline.mjs bands FILE      two streams, the second 0.5 s later by #lp.realtime
//   node timeline.mjs ranks FILE      a real mpirun job of 2 ranks, rank 1 doing twice rank 0's work
//   node timeline.mjs many FILE       make [1000] running 60 sh, each a cc1 of its own CPU time (1-60 x 0.1 ms)
//   node timeline.mjs regions FILE    tests/workloads/regions recorded: code regions as bands on their threads' rows
import { open, shot, check, near, scenario } from './lib.mjs';

const [mode, file] = process.argv.slice(2);
const ready = () => window.lpTimeline && window.lpTimeline.ready();

const labels = (page) => page.$$eval('text.label', (ts) => ts.map((t) => ({
	text: t.textContent, x: +t.getAttribute('x'), y: +t.getAttribute('y'), cls: t.getAttribute('class'),
	row: +t.getAttribute('data-row') })));

// What is drawn at time t (ns from the axis' 0) on a row: 'on', 'off', 'alive', or 'none'.
async function drawn(page, row, t) {
	const c = await page.evaluate(([r, tt]) => {
		const tl = window.lpTimeline;
		return tl.pixel(r, tl.x(tt) - tl.barsLeft());
	}, [row, t]);
	const [r, g, b, a] = c;
	if (a === 0) return 'none';
	if (r > 180 && g < 90 && b < 90) return 'on';
	if (b > 160 && r < 90) return 'off';
	if (r > 200 && g > 200 && b > 200 && Math.abs(r - b) < 8) return 'alive';
	return `rgba(${c})`;
}

async function tipAt(page, row, t) {
	const [x, y] = await page.evaluate(([r, tt]) => [window.lpTimeline.x(tt), window.lpTimeline.rowY(r) + 8], [row, t]);
	await page.mouse.move(x, y);
	return page.$eval('#tip', (g) => Array.from(g.querySelectorAll('tspan')).map((s) => s.textContent).join('\n'));
}

const ms = 1e6;

await scenario(async () => {
	const { browser, page, errors, loadMs } = await open(file, '', ready);
	if (mode === 'small') {
		const ls = await labels(page);
		check(ls.map((l) => l.text).join('|') === 'app [100]|worker 101|child [200]',
			'rows in spawn order: ' + ls.map((l) => l.text));
		check(ls[0].x < ls[1].x && ls[1].x < ls[2].x, 'each row one level deeper than its spawner');
		check(!/thread/.test(ls[0].cls) && /thread/.test(ls[1].cls), 'a process row and a thread row look apart');
		await shot(page, 'timeline-small');
		// app ran 0-100 ms, worker blocked 200-500 ms, child ran 300-400 ms (ns from the first event)
		check(await drawn(page, 0, 55 * ms) === 'on', 'app on the CPU at 50 ms: ' + await drawn(page, 0, 55 * ms));
		check(await drawn(page, 0, 310 * ms) === 'alive', 'app alive, idle at 300 ms: ' + await drawn(page, 0, 310 * ms));
		check(await drawn(page, 1, 355 * ms) === 'off', 'worker blocked at 350 ms: ' + await drawn(page, 1, 355 * ms));
		check(await drawn(page, 1, 110 * ms) === 'none', 'worker not yet spawned at 100 ms');
		check(await drawn(page, 2, 355 * ms) === 'on', 'child on the CPU at 350 ms');
		check(await drawn(page, 2, 555 * ms) === 'none', 'child gone after its exit at 450 ms');
		// the tooltip: lifetime, exact against sampled time, spawner and spawning stack
		let tip = await tipAt(page, 0, 55 * ms);
		check(tip.includes('app  pid 100 tid 100  (process)'), 'names the row: ' + tip);
		check(tip.includes("exec'd /usr/bin/app"), 'the program: ' + tip);
		check(tip.includes('\u26a0 on-CPU: exact 300.0 ms, sampled 100.0 ms (they disagree'), 'exact vs sampled, flagged: ' + tip);
		check(tip.includes('here: on-CPU 50.00 ms \u2192 60.00 ms in compute'), 'the sample under the pointer, its leaf: ' + tip);
		await shot(page, 'timeline-small-tip');
		tip = await tipAt(page, 1, 355 * ms);
		check(tip.includes('alive 150.0 ms \u2192 600.0 ms (450.0 ms) with its process'), 'a thread ends with its process: ' + tip);
		check(tip.includes('here: off-CPU 300.0 ms from 200.0 ms in futex_wait'), 'the interval under the pointer: ' + tip);
		check(tip.includes('spawned by app [100] at 150.0 ms'), 'its spawner: ' + tip);
		check(/spawning stack \(leaf first\):\n  pthread_create\n  start_workers\n  main/.test(tip), 'its spawning stack: ' + tip);
		tip = await tipAt(page, 2, 355 * ms);
		check(tip.includes('exit 3') && tip.includes('exact 101.0 ms, sampled 100.0 ms') && !tip.includes('\u26a0'),
			'agreeing figures are not flagged: ' + tip);
		// zoom in with the keyboard around the middle, pan, the URL keeps it, 0 resets
		await page.mouse.move(5, 5);
		const before = await page.evaluate(() => window.lpTimeline.view());
		await page.keyboard.press('+');
		const zoomed = await page.evaluate(() => window.lpTimeline.view());
		near((zoomed[1] - zoomed[0]) / (before[1] - before[0]), 1 / 1.5, 'zoomed by 1.5', 0.01);
		check(page.url().includes('t='), 'the zoom is in the URL: ' + page.url());
		check(await page.$eval('#unzoom', (e) => !/hide/.test(e.getAttribute('class'))), 'Reset Zoom shows');
		const ticks = await page.$$eval('text.axis', (ts) => ts.map((t) => t.textContent));
		check(ticks[0] !== '0', 'the axis follows the zoom: ' + ticks);
		await page.keyboard.press('ArrowRight');
		const panned = await page.evaluate(() => window.lpTimeline.view());
		check(panned[0] > zoomed[0], 'arrow pans right');
		// the worker's interval is still drawn exactly at any zoom
		check(await drawn(page, 1, 355 * ms) === 'off', 'blocked at 350 ms when zoomed');
		await page.keyboard.press('0');
		const reset = await page.evaluate(() => window.lpTimeline.view());
		check(reset[0] === before[0] && reset[1] === before[1], 'reset');
		// ctrl+wheel zooms around the pointer: the time under it stays put
		const x = await page.evaluate(() => window.lpTimeline.x(355e6));
		const y = await page.evaluate(() => window.lpTimeline.rowY(1) + 8);
		await page.mouse.move(x, y);
		await page.keyboard.down('Control');
		await page.mouse.wheel(0, -200);
		await page.keyboard.up('Control');
		const wheeled = await page.evaluate(() => window.lpTimeline.view());
		check(wheeled[1] - wheeled[0] < reset[1] - reset[0], 'ctrl+wheel zooms in: ' + wheeled);
		near(await page.evaluate(() => window.lpTimeline.x(355e6)), x, 'the time under the pointer stays', 1);
		// search: matching rows stand out, the count is said, the URL keeps it
		page.answer = 'child|worker';
		await page.click('#search');
		const st = await page.$eval('#status', (e) => e.textContent);
		check(st === 'Matched: 2 of 3 threads', 'search count: ' + st);
		const after = await labels(page);
		check(after.filter((l) => /match/.test(l.cls)).map((l) => l.text).join('|') === 'worker 101|child [200]', 'matches marked');
		check(page.url().includes('s=child%7Cworker'), 'the search is in the URL: ' + page.url());
		await shot(page, 'timeline-small-search');
		// a click on a row: its flame graph below
		await page.mouse.click(10 + after[1].x + 5, after[1].y - 4);
		const head = (await page.$$eval('#flame .head', (ts) => ts.map((t) => t.textContent)))[1];
		check(head.startsWith('Flame graph of worker 101 (pid 100, tid 101): 0 ns on-CPU, 300.0 ms off-CPU'), head);
		const names = await page.$$eval('#flame text', (ts) => ts.map((t) => t.textContent));
		check(['worker_main', 'wait_for_work', 'futex_wait'].every((n) => names.includes(n)), 'its frames: ' + names);
		check(page.url().includes('row=1'), 'the chosen row is in the URL');
		// and its flame chart on the timeline's axis: the blocked interval where it was
		const runs = await page.evaluate(() => window.lpTimeline.chartRuns());
		const fw = runs.find((c) => c.name === 'futex_wait');
		check(fw && fw.off && fw.start === 200 * ms && fw.end === 500 * ms && fw.depth === 2,
			'futex_wait in the flame chart from 200 to 500 ms, third level: ' + JSON.stringify(runs));
		const chartHead = await page.$$eval('#flame .head', (ts) => ts.map((t) => t.textContent));
		check(chartHead[0].startsWith('Flame chart of worker 101'), chartHead);
		await shot(page, 'timeline-small-flame');
		// the URL brings the same view back
		const url = page.url();
		const again = await browser.newPage({ viewport: { width: 1300, height: 900 } });
		await again.goto(url);
		await again.waitForFunction(ready);
		const st2 = await again.$eval('#status', (e) => e.textContent);
		check(st2 === 'Matched: 2 of 3 threads', 'search restored: ' + st2);
		check((await again.$$('#flame rect')).length > 0, 'flame graph restored');
	} else if (mode === 'recorded') {
		const ls = await labels(page);
		const names = ls.map((l) => l.text);
		for (const n of ['reader', 'waiter', 'locker'])
			check(names.some((t) => t.startsWith(n + ' ')), `a row for thread ${n}: ` + names);
		const main = ls.find((l) => /^blocking \[\d+\]$/.test(l.text));
		check(main, 'the main thread is a process row: ' + names);
		const child = ls.findIndex((l) => /^blocking \[\d+\]$/.test(l.text) && l.x > main.x);
		check(child > ls.findIndex((l) => l.text.startsWith('waiter ')), 'threads of a process come before the processes it spawned: ' + names);
		const reader = ls.find((l) => l.text.startsWith('reader '));
		check(reader.x > main.x, 'threads nested under their process');
		// the reader blocks ~300 ms in read(): somewhere in its life it is drawn blocked
		const life = await page.evaluate((r) => window.lpTimeline.view(), reader.row);
		let off = 0;
		for (let i = 1; i < 200; i++) if (await drawn(page, reader.row, life[0] + (life[1] - life[0]) * i / 200) === 'off') off++;
		check(off >= 10, `the reader is drawn off the CPU for a while (${off} of 200 points)`);
		const tip = await tipAt(page, reader.row, (life[0] + life[1]) / 2);
		check(/on-CPU: exact [\d.]+ .s, sampled/.test(tip), 'exact on-CPU time from the T record: ' + tip);
		check(/spawning stack \(leaf first\):[\s\S]*pthread_create/.test(tip), 'spawned by pthread_create: ' + tip);
		check(/main .*blocking\.c:\d+/.test(tip), "the spawning stack's frames have file:line: " + tip);
		await shot(page, 'timeline-recorded-tip');
		// the waiter's wait for the lock: ended by the locker, drawn as an arrow from its row
		const waiter = ls.find((l) => l.text.startsWith('waiter ')), locker = ls.find((l) => l.text.startsWith('locker '));
		const long = (await page.evaluate((r) => window.lpTimeline.offSpans(r), waiter.row)).filter((s) => s[1] - s[0] > 100 * ms);
		check(long.length === 1, 'one long wait of the waiter: ' + JSON.stringify(long));
		// (near its end: the tooltip, right of the pointer, leaves the arrow in sight)
		const wtip = await tipAt(page, waiter.row, long[0][1] - (long[0][1] - long[0][0]) / 40);
		check(new RegExp('woken by ' + locker.text + ' at [\\d.]+ .?s, then waited [\\d.]+ .?s for a CPU').test(wtip),
			'the tooltip names the locker as what ended the wait: ' + wtip);
		const arrow = await page.$$eval('#wake line', (ls) => ls.map((l) => [+l.getAttribute('y1'), +l.getAttribute('y2'), +l.getAttribute('x1')]));
		const [lockerY, waiterY] = await page.evaluate(([a, b]) => [window.lpTimeline.rowY(a), window.lpTimeline.rowY(b)], [locker.row, waiter.row]);
		check(arrow.length === 1 && Math.abs(arrow[0][0] - lockerY) < 20 && Math.abs(arrow[0][1] - waiterY) < 20,
			`an arrow from the locker's row (y ${lockerY}) to the waiter's (y ${waiterY}): ` + JSON.stringify(arrow));
		const endX = await page.evaluate((t) => window.lpTimeline.x(t), long[0][1]);
		check(Math.abs(arrow[0][2] - endX) < 3, `the arrow is where the wait ended (x ${endX}): ` + JSON.stringify(arrow));
		await shot(page, 'timeline-recorded-wake');
		// a nap, ended by a timer: said, no arrow
		const naps = (await page.evaluate((r) => window.lpTimeline.offSpans(r), main.row)).filter((s) => s[1] - s[0] > 40 * ms && s[1] - s[0] < 60 * ms);
		const ntip = await tipAt(page, main.row, (naps[0][0] + naps[0][1]) / 2);
		check(/woken by an interrupt/.test(ntip), 'a nap ended by a timer: ' + ntip);
		check(await page.$$eval('#wake line', (ls) => ls.length) === 0, 'no arrow for an interrupt');
		// the main thread's flame chart: it spins, then naps, in that order (the workload's own order)
		await page.mouse.click(main.x + 5, main.y - 4);
		const runs = await page.evaluate(() => window.lpTimeline.chartRuns());
		const spin = runs.filter((c) => /^spin/.test(c.name) && !c.off), nap = runs.filter((c) => c.name === 'nap' && c.off);
		check(spin.length && nap.length, 'spin on the CPU and nap off it: ' + runs.map((c) => c.name));
		check(Math.max(...spin.map((c) => c.end)) <= Math.min(...nap.map((c) => c.start)) + 1e6, 'spin comes before nap');
		const napTime = nap.reduce((a, c) => a + c.end - c.start, 0);
		check(napTime > 0.8e9 && napTime < 1.3e9, `nap() drawn for about its 20 x 50 ms: ${napTime / 1e6} ms`);
		await shot(page, 'timeline-recorded-chart');
		await page.mouse.move(5, 5);
		await shot(page, 'timeline-recorded');
		console.log(`rows ${ls.length} load ${loadMs} ms`);
	} else if (mode === 'many') {
		// 121 rows do not fit 900 px: the heaviest subtrees unfolded first, until the window is full
		const shown = async () => (await page.$$eval('text.label', (ts) => ts.filter((t) => t.style.display !== 'none')
			.map((t) => ({ text: t.textContent, y: +t.getAttribute('y'), row: +t.getAttribute('data-row') })))).sort((a, b) => a.y - b.y);
		let vis = await shown();
		check(vis.length === 61, '61 rows shown (make and its 60 sh, each folded with its cc1): ' + vis.length);
		check(vis[0].text === 'make [1000]', 'the root first: ' + vis[0].text);
		// sh 2047's cc1 ran 6 ms, sh 2034's 5.9 ms: the heaviest first
		check(vis[1].text === 'sh [2047]' && vis[2].text === 'sh [2034]', 'children by CPU time: ' + vis.slice(1, 4).map((v) => v.text));
		check(!vis.some((v) => /^cc1/.test(v.text)), 'each cc1 folded into its sh');
		const glyph = async (row) => page.$eval(`text.fold[data-row="${row}"]`, (t) => [t.textContent, +t.getAttribute('x'), +t.getAttribute('y')]);
		const [g1] = await glyph(vis[1].row);
		check(g1 === '\u25b8', 'a folded row is marked \u25b8: ' + g1);
		// the folded sh row draws its cc1's CPU time, at cc1's time (47 x 10 ms + 9 ms, 6 ms back from there)
		check(await drawn(page, vis[1].row, 476 * ms) === 'on', 'the folded row draws what its cc1 ran: ' + await drawn(page, vis[1].row, 476 * ms));
		const tip = await tipAt(page, vis[1].row, 476 * ms);
		check(/folded here: 1 thread \(1 process\), on-CPU 6\.00 ms/.test(tip), 'its tooltip says what is folded into it: ' + tip);
		await page.mouse.move(5, 5);
		await shot(page, 'timeline-many');
		// unfolded with a click on its mark: its cc1 right below it
		const [, gx, gy] = await glyph(vis[1].row);
		await page.mouse.click(gx + 3, gy - 4);
		vis = await shown();
		check(vis[2].text === 'cc1 [3047]', 'unfolded: cc1 below its sh: ' + vis.slice(1, 4).map((v) => v.text));
		check((await glyph(vis[1].row))[0] === '\u25be', 'an unfolded row is marked \u25be');
		check(await page.evaluate(() => window.lpTimeline.selected()) === -1, 'unfolding selects nothing');
		// siblings as they started
		await page.click('#order');
		vis = await shown();
		check(vis[1].text === 'sh [2000]' && vis[2].text === 'sh [2001]', 'order: start: ' + vis.slice(1, 4).map((v) => v.text));
		check(/order: start/.test(await page.$eval('#order', (t) => t.textContent)), 'the button says the order');
		await shot(page, 'timeline-many-start');
	} else if (mode === 'regions') {
		const ls = await labels(page);
		const main = ls.find((l) => /^regions \[\d+\]$/.test(l.text));
		const worker = ls.find((l) => /^worker /.test(l.text));
		check(main && worker, 'rows of the main thread and the worker: ' + ls.map((l) => l.text));
		const regs = await page.evaluate((r) => window.lpTimeline.regions(r), main.row);
		check(regs.map((g) => g.name).join(' ') === 'setup solver inner plugin io', "the main thread's regions, in order: " + JSON.stringify(regs));
		const inner = regs.find((g) => g.name === 'inner'), solver = regs.find((g) => g.name === 'solver');
		check(inner.depth === 1 && solver.depth === 0 && inner.start >= solver.start && inner.end <= solver.end, 'inner nested in solver');
		// drawn where the region ran, in the row's top pixels; the tooltip names the regions there
		const mid = (inner.start + inner.end) / 2;
		const px = await page.evaluate(([r, t]) => { const tl = window.lpTimeline; return tl.pixelAt(r, tl.x(t) - tl.barsLeft(), 1 + 3 + 1); }, [main.row, mid]);
		check(px && px[3] > 0 && px[1] > px[0] && px[1] > px[2], 'a green band of the inner region at its time: ' + px);
		const tip = await tipAt(page, main.row, mid);
		check(/in region solver \([\d.]+ ms\) \u203a inner \([\d.]+ ms\)/.test(tip), 'the tooltip names the regions: ' + tip);
		await page.mouse.move(5, 5);
		await shot(page, 'timeline-regions');
		// a click on the band: the flame graph of that region alone
		const [x, y] = await page.evaluate(([r, t]) => [window.lpTimeline.x(t), window.lpTimeline.rowY(r) + 1 + 3 + 1], [main.row, mid]);
		await page.mouse.click(x, y);
		const head = await page.$$eval('#flame text.head', (ts) => ts.map((t) => t.textContent).join(' | '));
		check(/in region inner/.test(head), 'the flame graph of the region: ' + head);
		// the thread's time in it, on and off the CPU, as long as the stream's begin and end say
		// (100 ms on an idle machine, more where other work preempts it; the thread's whole graph has its 700)
		const ns = await page.evaluate(() => window.lpTimeline.flameTime('main'));
		const dur = inner.end - inner.start;
		check(ns > 0.85 * dur && ns < 1.15 * dur, `the region's ${dur / 1e6} ms under main: ${ns / 1e6} ms`);
		await shot(page, 'timeline-regions-flame');
	} else if (mode === 'bands') {
		const bands = await page.$$eval('text.band', (ts) => ts.map((t) => t.textContent));
		check(bands.length === 2 && /rank=0/.test(bands[0]) && /rank=1/.test(bands[1]), 'a band per stream: ' + bands);
		const ls = await labels(page);
		check(ls.length === 6, 'rows of both: ' + ls.map((l) => l.text));
		// the second stream started 0.5 s after the first (CLOCK_REALTIME), its app ran 0-100 ms of its own
		check(await drawn(page, 3, 55 * ms) === 'none', 'rank 1 not running at 50 ms');
		check(await drawn(page, 3, 555 * ms) === 'on', 'rank 1 running at 550 ms: ' + await drawn(page, 3, 550 * ms));
		check(await drawn(page, 0, 55 * ms) === 'on', 'rank 0 running at 50 ms');
		await shot(page, 'timeline-bands');
	} else if (mode === 'ranks') {
		const bands = await page.$$eval('text.band', (ts) => ts.map((t) => t.textContent));
		check(bands.length === 2 && / rank=0/.test(bands[0]) && / rank=1/.test(bands[1]), 'a band per rank, in rank order: ' + bands);
		const ls = await labels(page);
		const mains = ls.filter((l) => /^mpi-ranks \[\d+\]$/.test(l.text));
		check(mains.length === 2, 'a process row per rank: ' + ls.map((l) => l.text));
		// Open MPI's barrier spins, so both ranks are on the CPU all along; what
		// each did is in its flame graph: rank 1 burnt twice as long. (Widths
		// are shares of each rank's own time, which a busy machine stretches
		// unevenly: the check is on the time the frames stand for.)
		const times = [], widths = [];
		for (const m of mains) {
			await page.mouse.click(m.x + 5, m.y - 4);
			times.push(await page.evaluate(() => window.lpTimeline.flameTime('burn')));
			widths.push(await page.evaluate(() => window.lpTimeline.flameWidth('burn')));
		}
		check(widths[0] > 0 && widths[1] > 0, `burn() drawn in both ranks' flame graphs: ${widths}`);
		check(times[0] > 0 && times[1] / times[0] > 1.6 && times[1] / times[0] < 2.4,
			`burn() twice as long for rank 1 as for rank 0: ${times} ns`);
		await shot(page, 'timeline-ranks');
		console.log(`burn: rank 0 ${times[0]} ns ${widths[0]} px, rank 1 ${times[1]} ns ${widths[1]} px`);
	}
	check(errors.length === 0, 'no errors: ' + errors);
	await browser.close();
});
