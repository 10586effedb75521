// SPDX-License-Identifier: GPL-2.0-or-later
// pipelines/lp-report's index.html, opened from disk: the first screen says
// what happened, the picker opens a thread in the timeline, the flame graphs
// and source views are there.
//
//   node report.mjs DIR/index.html   (a report of tests/workloads/blocking)
import { open, shot, check, scenario } from './lib.mjs';

const [file] = process.argv.slice(2);

// The document of an <object> (its own frame), once its picture is drawn.
async function objectFrame(page, src, ready) {
	for (let i = 0; i < 300; i++) {
		for (const f of page.frames())
			if (f.url().split('/').pop().split('?')[0] === src) {
				try { if (await f.evaluate(ready)) return f; } catch (e) { /* still loading */ }
			}
		await page.waitForTimeout(100);
	}
	throw new Error('no drawn ' + src + ' in ' + page.frames().map((f) => f.url()));
}

await scenario(async () => {
	const { browser, page, errors } = await open(file, '', () => document.readyState === 'complete');
	const summary = await page.$$eval('table.summary tr', (trs) => Object.fromEntries(trs.map((tr) =>
		[tr.querySelector('th').textContent, tr.querySelector('td').textContent])));
	check(summary['Exit status'] === '0', 'exit status: ' + JSON.stringify(summary));
	check(summary['Processes, threads'] === '2, 5', 'the workload has 2 processes and 5 threads: ' + summary['Processes, threads']);
	check(/^\d+(\.\d+)? (ms|s) \(exact/.test(summary['CPU time']), 'exact CPU time: ' + summary['CPU time']);
	check(/ in \d+ samples$/.test(summary['On-CPU sampled']), 'samples: ' + summary['On-CPU sampled']);
	const top = await page.$$eval('table.top tr td:first-child', (tds) => tds.map((t) => t.textContent));
	// the naps (a timer ended them) rank; the reader's read, which the main thread's write ended, is a wait for it
	check(top.some((t) => /^spin/.test(t)) && top.includes('clock_nanosleep') && !top.includes('read'), 'top functions: ' + top);
	const waits = await page.$$eval('table.top tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent).join('|')));
	check(waits.some((w) => /^waiter\|locker\|/.test(w)) && waits.some((w) => /^reader\|blocking\|/.test(w)),
		'waits another thread ended, with what ended them: ' + waits);
	await shot(page, 'report-top');
	// the timeline, then a thread picked: its flame chart and flame graph
	const tl = await objectFrame(page, 'timeline.svg', () => window.lpTimeline && window.lpTimeline.ready());
	check((await tl.$$('text.label')).length === 5, 'a row per thread');
	const reader = await page.$$eval('#thread option', (os) => os.find((o) => /^reader /.test(o.textContent)).value);
	await page.selectOption('#thread', reader);
	await page.waitForTimeout(300);
	const picked = await objectFrame(page, 'timeline.svg', () => window.lpTimeline && window.lpTimeline.ready() &&
		document.querySelector('#flame .head') !== null);
	const heads = await picked.$$eval('#flame .head', (ts) => ts.map((t) => t.textContent));
	check(heads.length === 2 && heads[0].startsWith('Flame chart of reader') && heads[1].startsWith('Flame graph of reader'),
		'the picked thread: ' + heads);
	await page.$eval('#timeline', (o) => o.scrollIntoView());
	await shot(page, 'report-timeline');
	const graphs = await page.$$eval('object', (os) => os.map((o) => o.getAttribute('data')));
	for (const g of ['flamegraph.svg', 'oncpu.svg', 'offcpu.svg'])
		check(graphs.includes(g), `flame graph ${g}: ` + graphs);
	// source views: spin's lines on the CPU (green), nap's off it (blue)
	const src = await page.$$eval('table.source', (ts) => ts.map((t) => ({
		fn: t.previousElementSibling.previousElementSibling.textContent,
		on: Math.max(0, ...Array.from(t.querySelectorAll('td.on span')).map((s) => s.offsetWidth)),
		off: Math.max(0, ...Array.from(t.querySelectorAll('td.off span')).map((s) => s.offsetWidth)) })));
	const spin = src.find((s) => /^spin/.test(s.fn)), nap = src.find((s) => s.fn === 'nap');
	// a spinning thread is off the CPU only when a busy host preempts it
	check(spin && spin.on > 5 && spin.off < spin.on / 2, 'spin on the CPU: ' + JSON.stringify(src));
	// waking from its sleeps takes it on the CPU for a moment: more of them on a busy host
	check(nap && nap.off > 20 && nap.on < nap.off / 5, 'nap off the CPU: ' + JSON.stringify(src));
	await page.$eval('table.source', (t) => t.scrollIntoView());
	await shot(page, 'report-source');
	check(errors.length === 0, 'no errors: ' + errors);
	await browser.close();
});
